/* The JIT: prologues, ptxas reports, NVRTC compiles, the on-disk cubin store shared by
 * processes (a second process does not call NVRTC; two cold processes compile once). */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jit.h"
#include "testutil.h"

#define PROBE_DIR W8A8_SOURCE_DIR "/tests/templates"

static w8a8_context *probe_ctx(const char *kernel_dir)
{
    w8a8_context_options o = {0};
    o.kernel_dir = kernel_dir;
    o.template_dir = PROBE_DIR;
    o.flags = W8A8_CONTEXT_CPU_ONLY;
    w8a8_context *ctx = NULL;
    ck_assert_int_eq(w8a8_context_open(&ctx, &o), W8A8_OK);
    return ctx;
}

static uint64_t compiles(w8a8_context *ctx)
{
    w8a8_context_stats s;
    ck_assert_int_eq(w8a8_context_stats_get(ctx, &s), W8A8_OK);
    return s.nvrtc_compiles;
}

START_TEST(prologue_parses_and_rejects)
{
    w8a8_context *ctx = test_ctx_open_fresh(NULL, 0);
    char *p = NULL;
    ck_assert_int_eq(jit_prologue(ctx, "block_m=128, stages=4 X=-1.5", &p), W8A8_OK);
    ck_assert_ptr_nonnull(strstr(p, "#define W8A8_BLOCK_M 128\n"));
    ck_assert_ptr_nonnull(strstr(p, "#define W8A8_STAGES 4\n"));
    ck_assert_ptr_nonnull(strstr(p, "#define W8A8_X -1.5\n"));
    free(p);
    ck_assert_int_eq(jit_prologue(ctx, "block_m", &p), W8A8_INVALID);
    ck_assert_ptr_nonnull(strstr(w8a8_errmsg(ctx), "NAME=VALUE"));
    ck_assert_int_eq(jit_prologue(ctx, "a=1;rm -rf", &p), W8A8_INVALID);
    ck_assert_int_eq(jit_prologue(ctx, "a=\"x\"", &p), W8A8_INVALID);
    w8a8_context_close(ctx);
}
END_TEST

START_TEST(ptxas_report_parsed)
{
    const char *log = "ptxas info    : Compiling entry function 'k' for 'sm_90a'\n"
                      "ptxas info    : Function properties for k\n"
                      "    16 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n"
                      "ptxas info    : Used 168 registers, used 1 barriers, 2048 bytes smem, 400 bytes cmem[0]\n";
    w8a8_kernel_info info = {0};
    jit_parse_ptxas(log, &info);
    ck_assert_int_eq(info.registers, 168);
    ck_assert_int_eq(info.shared_bytes, 2048);
    ck_assert_int_eq(info.stack_bytes, 16);
    ck_assert_int_eq(info.spill_stores, 8);
    ck_assert_int_eq(info.spill_loads, 12);
    ck_assert_int_eq(info.rejected, 1);
    w8a8_kernel_info clean = {0};
    jit_parse_ptxas("ptxas info : Used 40 registers\n    0 bytes stack frame, 0 bytes spill stores, "
                    "0 bytes spill loads\n", &clean);
    ck_assert_int_eq(clean.registers, 40);
    ck_assert_int_eq(clean.rejected, 0);
    /* a serialization note rejects the kernel with its code: a listed one, and one the parser
     * has no entry for (C7514, seen with two alternating accumulator sets in flight across a
     * loop's back edge) */
    static const struct {
        const char *log, *code;
    } notes[] = {
        {"ptxas warning : (C7510) Potential Performance Loss: wgmma.mma_async instructions are "
         "serialized\n", "C7510"},
        {"ptxas info    : Compiling entry function 'w8a8_sm90_gemm' for 'sm_90a'\n"
         "ptxas info    : (C7514) Potential Performance Loss: wgmma.mma_async instructions are "
         "serialized due to non wgmma instructions reading accumulator registers of  a wgmma "
         "between start and end of the pipeline stage in the function 'w8a8_sm90_gemm'\n",
         "C7514"},
    };
    for (size_t i = 0; i < sizeof notes / sizeof notes[0]; i++) {
        w8a8_kernel_info serial = {0};
        jit_parse_ptxas(notes[i].log, &serial);
        ck_assert_int_eq(serial.rejected, 1);
        ck_assert_ptr_nonnull(strstr(serial.reject_reason, notes[i].code));
    }
    /* NVRTC's own layout (CUDA 13), from a sm90_gemm whose accumulators ptxas had put in local
     * memory: the figures follow "ptxas         ." and the C7518 note comes first */
    w8a8_kernel_info local = {0};
    jit_parse_ptxas("ptxas info    : (C7518) Potential Performance Loss: wgmma.mma_async "
                    "instructions are serialized due to program dependence on compiler-inserted "
                    "WG.DP in divergent path in the function 'w8a8_sm90_gemm'\n"
                    "ptxas info    : 0 bytes gmem\n"
                    "ptxas info    : Function properties for w8a8_sm90_gemm\n"
                    "ptxas         .     176 bytes stack frame, 504 bytes spill stores, 512 bytes "
                    "spill loads\n"
                    "ptxas info    : Used 168 registers, used 16 barriers, 176 bytes cumulative "
                    "stack size\n", &local);
    ck_assert_int_eq(local.registers, 168);
    ck_assert_int_eq(local.stack_bytes, 176);
    ck_assert_int_eq(local.spill_stores, 504);
    ck_assert_int_eq(local.spill_loads, 512);
    ck_assert_int_eq(local.rejected, 1);
    ck_assert_ptr_nonnull(strstr(local.reject_reason, "C7518"));
    w8a8_kernel_info spilled = {0};
    jit_parse_ptxas("ptxas         .     8 bytes stack frame, 8 bytes spill stores, 4 bytes spill "
                    "loads\nptxas info    : Used 255 registers\n", &spilled);
    ck_assert_int_eq(spilled.spill_stores, 8);
    ck_assert_int_eq(spilled.rejected, 1);
    ck_assert_ptr_nonnull(strstr(spilled.reject_reason, "spills"));
}
END_TEST

START_TEST(compile_then_store_hit)
{
    char dir[256];
    test_mkdtemp(dir, sizeof dir);
    w8a8_context *ctx = probe_ctx(dir);
    w8a8_kernel_info info;
    char *log = NULL;
    ck_assert_msg(w8a8_kernel_compile(ctx, "jit_probe", "VALUE=3", "sm_80", &info, &log) == W8A8_OK,
                  "%s", w8a8_errmsg(ctx));
    w8a8_free(log);
    ck_assert_int_gt(info.registers, 0);
    ck_assert_int_eq(info.from_disk, 0);
    ck_assert_uint_eq(compiles(ctx), 1);
    ck_assert_int_eq(w8a8_kernel_compile(ctx, "jit_probe", "VALUE=3", "sm_80", &info, NULL), W8A8_OK);
    ck_assert_int_eq(info.from_disk, 1);
    ck_assert_uint_eq(compiles(ctx), 1);
    /* other defines, other arch: other keys */
    ck_assert_int_eq(w8a8_kernel_compile(ctx, "jit_probe", "VALUE=4", "sm_80", &info, NULL), W8A8_OK);
    ck_assert_int_eq(w8a8_kernel_compile(ctx, "jit_probe", "VALUE=3", "sm_90a", &info, NULL), W8A8_OK);
    ck_assert_uint_eq(compiles(ctx), 3);
    w8a8_context_close(ctx);
}
END_TEST

START_TEST(errors_are_reported)
{
    char dir[256];
    test_mkdtemp(dir, sizeof dir);
    w8a8_context *ctx = probe_ctx(dir);
    char *log = NULL;
    ck_assert_int_eq(w8a8_kernel_compile(ctx, "no_such_template", "", "sm_80", NULL, NULL), W8A8_NOT_FOUND);
    ck_assert_ptr_nonnull(strstr(w8a8_errmsg(ctx), "no_such_template"));
    ck_assert_int_eq(w8a8_kernel_compile(ctx, "jit_probe", "VALUE=1", "sm_75", NULL, NULL), W8A8_INVALID);
    ck_assert_ptr_nonnull(strstr(w8a8_errmsg(ctx), "arch"));
    ck_assert_int_eq(w8a8_kernel_compile(ctx, "jit_probe", "", "sm_80", NULL, &log), W8A8_COMPILE_ERROR);
    ck_assert_ptr_nonnull(strstr(w8a8_errmsg(ctx), "W8A8_VALUE must be defined"));
    ck_assert_ptr_nonnull(log);
    w8a8_free(log);
    ck_assert_int_eq(w8a8_kernel_compile(ctx, "jit_broken", "", "sm_80", NULL, NULL), W8A8_COMPILE_ERROR);
    ck_assert_int_ne(w8a8_error_nvrtc(ctx), 0);
    ck_assert_ptr_nonnull(strstr(w8a8_errmsg(ctx), "undefined_name"));
    /* an error after 40 warnings: the message leads with the error line, not the warnings
     * that fill the log's start */
    ck_assert_int_eq(w8a8_kernel_compile(ctx, "jit_noisy", "", "sm_80", NULL, &log), W8A8_COMPILE_ERROR);
    ck_assert_ptr_nonnull(strstr(log, "unused_39"));
    ck_assert_msg(strstr(w8a8_errmsg(ctx), "late_undefined_name"), "%s", w8a8_errmsg(ctx));
    w8a8_free(log);
    ck_assert_int_eq(w8a8_kernel_compile(NULL, "jit_probe", "", "sm_80", NULL, NULL), W8A8_INVALID);
    w8a8_context_close(ctx);
}
END_TEST

/* Child: compile the probe once; exit status = 10·nvrtc compiles + disk hits. */
static void child_compile(const char *dir, int wait_fd)
{
    char go;
    if (wait_fd >= 0 && read(wait_fd, &go, 1) != 1)
        _exit(99);
    w8a8_context_options o = {.kernel_dir = dir, .template_dir = PROBE_DIR,
                              .flags = W8A8_CONTEXT_CPU_ONLY};
    w8a8_context *ctx = NULL;
    if (w8a8_context_open(&ctx, &o) != W8A8_OK ||
        w8a8_kernel_compile(ctx, "jit_probe", "VALUE=7", "sm_89", NULL, NULL) != W8A8_OK)
        _exit(98);
    w8a8_context_stats s;
    w8a8_context_stats_get(ctx, &s);
    w8a8_context_close(ctx);
    _exit((int)(10 * s.nvrtc_compiles + s.disk_hits));
}

static int wait_child(pid_t pid)
{
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status));
    return WEXITSTATUS(status);
}

START_TEST(second_process_uses_disk)
{
    char dir[256];
    test_mkdtemp(dir, sizeof dir);
    pid_t first = fork();
    if (first == 0)
        child_compile(dir, -1);
    ck_assert_int_eq(wait_child(first), 10); /* compiled */
    pid_t second = fork();
    if (second == 0)
        child_compile(dir, -1);
    ck_assert_int_eq(wait_child(second), 1); /* no NVRTC, one disk hit */
}
END_TEST

START_TEST(cold_processes_compile_once)
{
    for (int round = 0; round < 3; round++) {
        char dir[256];
        test_mkdtemp(dir, sizeof dir);
        int fds[2];
        ck_assert_int_eq(pipe(fds), 0);
        pid_t pids[4];
        for (int i = 0; i < 4; i++) {
            pids[i] = fork();
            if (pids[i] == 0) {
                close(fds[1]);
                child_compile(dir, fds[0]);
            }
        }
        close(fds[0]);
        ck_assert_int_eq(write(fds[1], "gggg", 4), 4); /* release all four at once */
        close(fds[1]);
        int compiled = 0, hits = 0;
        for (int i = 0; i < 4; i++) {
            int code = wait_child(pids[i]);
            ck_assert_msg(code == 10 || code == 1, "child exit %d", code);
            compiled += code / 10;
            hits += code % 10;
        }
        ck_assert_int_eq(compiled, 1);
        ck_assert_int_eq(hits, 3);
    }
}
END_TEST

START_TEST(damaged_store_entry_is_recompiled)
{
    char dir[256];
    test_mkdtemp(dir, sizeof dir);
    w8a8_context *ctx = probe_ctx(dir);
    jit_cubin cubin;
    ck_assert_int_eq(jit_cubin_get(ctx, "jit_probe", "VALUE=5", "sm_80", &cubin), W8A8_OK);
    char path[512];
    snprintf(path, sizeof path, "%s/%s.cubin", dir, cubin.key);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    fputs("garbage", f);
    fclose(f);
    jit_cubin again;
    ck_assert_int_eq(jit_cubin_get(ctx, "jit_probe", "VALUE=5", "sm_80", &again), W8A8_OK);
    ck_assert_int_eq(again.info.from_disk, 0);
    ck_assert_uint_eq(again.size, cubin.size);
    ck_assert_uint_eq(compiles(ctx), 2);
    jit_cubin_free(&cubin);
    jit_cubin_free(&again);
    w8a8_context_close(ctx);
}
END_TEST

START_TEST(no_disk_cache_flag)
{
    char dir[256];
    test_mkdtemp(dir, sizeof dir);
    w8a8_context_options o = {.kernel_dir = dir, .template_dir = PROBE_DIR,
                              .flags = W8A8_CONTEXT_CPU_ONLY | W8A8_CONTEXT_NO_DISK_CACHE};
    w8a8_context *ctx = NULL;
    ck_assert_int_eq(w8a8_context_open(&ctx, &o), W8A8_OK);
    w8a8_kernel_info info;
    ck_assert_int_eq(w8a8_kernel_compile(ctx, "jit_probe", "VALUE=2", "sm_80", &info, NULL), W8A8_OK);
    ck_assert_int_eq(w8a8_kernel_compile(ctx, "jit_probe", "VALUE=2", "sm_80", &info, NULL), W8A8_OK);
    ck_assert_uint_eq(compiles(ctx), 2);
    ck_assert_int_eq(rmdir(dir), 0); /* nothing was written */
    w8a8_context_close(ctx);
}
END_TEST

START_TEST(cpu_only_context_has_no_device)
{
    w8a8_context *ctx = test_ctx_open_fresh(NULL, 0);
    ck_assert_int_eq(w8a8_context_has_device(ctx), 0);
    const jit_kernel *k = NULL;
    ck_assert_int_eq(jit_kernel_get(ctx, "jit_probe", "VALUE=1", "sm_80", "jit_probe", &k), W8A8_NO_DEVICE);
    ck_assert_ptr_nonnull(strstr(w8a8_errmsg(ctx), "no CUDA device"));
    w8a8_device_info info;
    ck_assert_int_eq(w8a8_context_device_info(ctx, &info), W8A8_OK);
    ck_assert_int_gt(info.nvrtc_major, 0);
    w8a8_context_close(ctx);
}
END_TEST

START_TEST(sha256_known_answers)
{
    char hex[65];
    const void *bufs[1] = {"abc"};
    size_t sizes[1] = {3};
    util_sha256_hex(bufs, sizes, 1, hex);
    ck_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const void *split[2] = {"abcdbcdecdefdefgefghfghighijhi", "jkijkljklmklmnlmnomnopnopq"};
    size_t split_sizes[2] = {30, 26};
    util_sha256_hex(split, split_sizes, 2, hex);
    ck_assert_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("jit");
    TCase *tc = tcase_create("jit");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, prologue_parses_and_rejects);
    tcase_add_test(tc, ptxas_report_parsed);
    tcase_add_test(tc, compile_then_store_hit);
    tcase_add_test(tc, errors_are_reported);
    tcase_add_test(tc, second_process_uses_disk);
    tcase_add_test(tc, cold_processes_compile_once);
    tcase_add_test(tc, damaged_store_entry_is_recompiled);
    tcase_add_test(tc, no_disk_cache_flag);
    tcase_add_test(tc, cpu_only_context_has_no_device);
    tcase_add_test(tc, sha256_known_answers);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
