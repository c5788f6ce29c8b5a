/* w8a8 bench: times the dispatched kernel per shape (w8a8_bench_time: rotated buffers of at
 * least 4 × L2, random data, CUDA events, median) beside cuBLASLt on the same buffers when
 * libcublasLt is present (dlopen; FP8 with per-tensor, per-row (outer-vector) and 128-block
 * scales), and prints µs, TFLOP/s and GB/s — as a table, or as JSON lines with the fields of
 * shared/bench/peers.py so the two outputs join. --host-overhead measures the host time of a
 * cached w8a8_scaled_mm call beside the driver's floor for the same launch; --op quant|linear
 * hands over to bench_quant.c, --op mma-peak to bench_mma.c. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* ---- cuBLASLt, loaded at run time --------------------------------------------------------------
 * The few types and constants used, restated from cublasLt.h / library_types.h (stable ABI). */

typedef void *lt_handle, *lt_desc, *lt_layout, *lt_pref;
typedef struct lt_algo {
    uint64_t data[8];
} lt_algo;
typedef struct lt_heuristic {
    lt_algo algo;
    size_t workspace_size;
    int state;
    float waves;
    int reserved[4];
} lt_heuristic;

enum {
    LT_R_16F = 2, LT_R_16BF = 14, LT_R_32F = 0, LT_R_8F_E4M3 = 28, LT_R_8F_E5M2 = 29,
    LT_COMPUTE_32F = 68, LT_OP_N = 0, LT_OP_T = 1,
    LT_DESC_TRANSA = 3, LT_DESC_TRANSB = 4, LT_DESC_A_SCALE_POINTER = 17,
    LT_DESC_B_SCALE_POINTER = 18, LT_DESC_A_SCALE_MODE = 31, LT_DESC_B_SCALE_MODE = 32,
    LT_DESC_FAST_ACCUM = 25,
    LT_PREF_MAX_WORKSPACE = 1,
    LT_SCALE_SCALAR_32F = 0, LT_SCALE_OUTER_VEC_32F = 3, LT_SCALE_VEC128_32F = 4,
    LT_SCALE_BLK128x128_32F = 5,
};
#define LT_WORKSPACE_BYTES (32u << 20)

typedef struct lt_api {
    int (*create)(lt_handle *);
    int (*destroy)(lt_handle);
    int (*desc_create)(lt_desc *, int compute, int scale_type);
    int (*desc_set)(lt_desc, int attr, const void *value, size_t size);
    int (*desc_destroy)(lt_desc);
    int (*layout_create)(lt_layout *, int type, uint64_t rows, uint64_t cols, int64_t ld);
    int (*layout_destroy)(lt_layout);
    int (*pref_create)(lt_pref *);
    int (*pref_set)(lt_pref, int attr, const void *value, size_t size);
    int (*pref_destroy)(lt_pref);
    int (*heuristic)(lt_handle, lt_desc, lt_layout, lt_layout, lt_layout, lt_layout, lt_pref,
                     int requested, lt_heuristic *results, int *returned);
    int (*matmul)(lt_handle, lt_desc, const void *alpha, const void *a, lt_layout, const void *b,
                  lt_layout, const void *beta, const void *c, lt_layout, void *d, lt_layout,
                  const lt_algo *, void *workspace, size_t workspace_bytes, void *stream);
    lt_handle handle;
    char library[32];
} lt_api;

/* Loads libcublasLt (13, else 12) and creates a handle; false (with *why) when absent. */
static bool lt_load(lt_api *lt, const char **why)
{
    static const char *const names[] = {"libcublasLt.so.13", "libcublasLt.so.12"};
    void *lib = NULL;
    for (size_t i = 0; i < 2 && !lib; i++)
        if ((lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL)) != NULL)
            snprintf(lt->library, sizeof lt->library, "%s", names[i]);
    if (!lib) {
        *why = "libcublasLt.so.13/.12 not found";
        return false;
    }
    static const char *const symbols[] = {
        "cublasLtCreate", "cublasLtDestroy", "cublasLtMatmulDescCreate",
        "cublasLtMatmulDescSetAttribute", "cublasLtMatmulDescDestroy",
        "cublasLtMatrixLayoutCreate", "cublasLtMatrixLayoutDestroy",
        "cublasLtMatmulPreferenceCreate", "cublasLtMatmulPreferenceSetAttribute",
        "cublasLtMatmulPreferenceDestroy", "cublasLtMatmulAlgoGetHeuristic", "cublasLtMatmul"};
    void **slots[] = {(void **)&lt->create,       (void **)&lt->destroy,
                      (void **)&lt->desc_create,  (void **)&lt->desc_set,
                      (void **)&lt->desc_destroy, (void **)&lt->layout_create,
                      (void **)&lt->layout_destroy, (void **)&lt->pref_create,
                      (void **)&lt->pref_set,     (void **)&lt->pref_destroy,
                      (void **)&lt->heuristic,    (void **)&lt->matmul};
    for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++)
        if (!(*slots[i] = dlsym(lib, symbols[i]))) {
            *why = "libcublasLt lacks a needed symbol";
            return false;
        }
    return true;
}

/* One shape's cuBLASLt state: out[m, n] (row-major) is computed column-major as
 * outᵀ (N×M) = op(B as K×N col-major)ᵀ · (A as K×M col-major), the "TN" form FP8 requires;
 * so cuBLASLt's A is our weight B and its B is our activation A, and the scales swap too. */
typedef struct lt_case {
    lt_api *lt;
    lt_desc desc;
    lt_layout a, b, c;
    lt_pref pref;
    lt_algo algo;
    bool have_algo;
    int status; /* last cuBLAS status */
} lt_case;

static int lt_type(w8a8_dtype t)
{
    switch (t) {
    case W8A8_E4M3: return LT_R_8F_E4M3;
    case W8A8_E5M2: return LT_R_8F_E5M2;
    case W8A8_BF16: return LT_R_16BF;
    case W8A8_FP16: return LT_R_16F;
    case W8A8_FP32: return LT_R_32F;
    default: return -1;
    }
}

/* What this comparison covers: FP8 (not e5m2 × e5m2), no bias or zero point, and the scale
 * pairs cuBLASLt has modes for. */
static bool lt_supports(const w8a8_problem *p)
{
    bool fp8 = lt_type(p->a_type) >= LT_R_8F_E4M3 && lt_type(p->b_type) >= LT_R_8F_E4M3 &&
               !(p->a_type == W8A8_E5M2 && p->b_type == W8A8_E5M2);
    bool scales = p->a_scale.kind == p->b_scale.kind &&
                  (p->a_scale.kind != W8A8_SCALE_BLOCK || p->a_scale.k_major);
    return fp8 && scales && p->bias_type == W8A8_DTYPE_NONE && p->azp == W8A8_AZP_NONE;
}

static void lt_scale_modes(const w8a8_problem *p, int32_t *mode_a, int32_t *mode_b)
{
    switch (p->a_scale.kind) {
    case W8A8_SCALE_TENSOR: *mode_a = *mode_b = LT_SCALE_SCALAR_32F; break;
    case W8A8_SCALE_ROW: *mode_a = *mode_b = LT_SCALE_OUTER_VEC_32F; break;
    case W8A8_SCALE_BLOCK: *mode_a = LT_SCALE_BLK128x128_32F; *mode_b = LT_SCALE_VEC128_32F; break;
    }
}

static int lt_case_init(lt_case *c, lt_api *lt, const w8a8_problem *p)
{
    memset(c, 0, sizeof *c);
    c->lt = lt;
    int32_t trans_a = LT_OP_T, trans_b = LT_OP_N, mode_a = 0, mode_b = 0;
    uint64_t workspace = LT_WORKSPACE_BYTES;
    lt_scale_modes(p, &mode_a, &mode_b);
    /* like for like: cuBLASLt's fast accumulation against our W8A8_ACCUM_FAST kernels, its
     * default (promoted) path against the others */
    int8_t fast = p->accum == W8A8_ACCUM_FAST && p->a_scale.kind != W8A8_SCALE_BLOCK;
    int rc = lt->desc_create(&c->desc, LT_COMPUTE_32F, LT_R_32F);
    if (!rc) rc = lt->desc_set(c->desc, LT_DESC_FAST_ACCUM, &fast, sizeof fast);
    if (!rc) rc = lt->desc_set(c->desc, LT_DESC_TRANSA, &trans_a, sizeof trans_a);
    if (!rc) rc = lt->desc_set(c->desc, LT_DESC_TRANSB, &trans_b, sizeof trans_b);
    if (!rc && mode_a) rc = lt->desc_set(c->desc, LT_DESC_A_SCALE_MODE, &mode_a, sizeof mode_a);
    if (!rc && mode_b) rc = lt->desc_set(c->desc, LT_DESC_B_SCALE_MODE, &mode_b, sizeof mode_b);
    if (!rc) rc = lt->layout_create(&c->a, lt_type(p->b_type), (uint64_t)p->k, (uint64_t)p->n, p->k);
    if (!rc) rc = lt->layout_create(&c->b, lt_type(p->a_type), (uint64_t)p->k, (uint64_t)p->m, p->k);
    if (!rc) rc = lt->layout_create(&c->c, lt_type(p->out_type), (uint64_t)p->n, (uint64_t)p->m, p->n);
    if (!rc) rc = lt->pref_create(&c->pref);
    if (!rc) rc = lt->pref_set(c->pref, LT_PREF_MAX_WORKSPACE, &workspace, sizeof workspace);
    return c->status = rc;
}

static void lt_case_free(lt_case *c)
{
    lt_api *lt = c->lt;
    if (c->pref) lt->pref_destroy(c->pref);
    if (c->a) lt->layout_destroy(c->a);
    if (c->b) lt->layout_destroy(c->b);
    if (c->c) lt->layout_destroy(c->c);
    if (c->desc) lt->desc_destroy(c->desc);
}

/* The w8a8_bench_launch_fn: scale pointers change with the rotated buffer set. */
static int lt_launch(void *user, const w8a8_problem *p, const w8a8_tensors *t, void *workspace,
                     void *stream)
{
    lt_case *c = user;
    lt_api *lt = c->lt;
    const void *scale_a = t->b_scale, *scale_b = t->a_scale; /* swapped: see lt_case */
    int rc = lt->desc_set(c->desc, LT_DESC_A_SCALE_POINTER, &scale_a, sizeof scale_a);
    if (!rc)
        rc = lt->desc_set(c->desc, LT_DESC_B_SCALE_POINTER, &scale_b, sizeof scale_b);
    if (!rc && !c->have_algo) {
        lt_heuristic h;
        int returned = 0;
        rc = lt->heuristic(lt->handle, c->desc, c->a, c->b, c->c, c->c, c->pref, 1, &h, &returned);
        if (!rc && returned < 1)
            rc = -1; /* no algorithm for this combination */
        c->algo = h.algo;
        c->have_algo = rc == 0;
    }
    float alpha = 1.0f, beta = 0.0f;
    if (!rc)
        rc = lt->matmul(lt->handle, c->desc, &alpha, t->b, c->a, t->a, c->b, &beta, t->out, c->c,
                        t->out, c->c, &c->algo, workspace, LT_WORKSPACE_BYTES, stream);
    (void)p;
    return c->status = rc;
}

/* ---- the command ------------------------------------------------------------------------------ */

#define BENCH_MAX_SHAPES 512
#define BENCH_MAX_MS 64
#define BENCH_DEFAULT_CALLS 20000

#define BENCH_GRID_NAMES "llama3|small|dsv3|decode" /* bench_grids below */

typedef struct bench_cli {
    cli_problem_spec spec;
    long long shapes[BENCH_MAX_SHAPES][3];
    size_t shape_count;
    const char *model, *grid;
    long long ms[BENCH_MAX_MS];
    size_t m_count;
    bool json, verify, host_overhead, no_cublaslt, graph;
    int samples, calls, batch;
    lt_api lt;
    bool have_lt;
} bench_cli;

static void bench_usage(FILE *f)
{
    fprintf(f,
            "usage: w8a8 bench [--shape M,N,K]... [--model %s [--m LIST]]\n"
            "                  [--grid " BENCH_GRID_NAMES "]\n"
            "                  [--dtype e4m3|e5m2|int8] [--scale A,B] [--out bf16|fp16|fp32]\n"
            "                  [--accum fast|promoted] [--samples N] [--verify] [--no-cublaslt]\n"
            "                  [--graph] [--batch N] [--json] [--host-overhead [--calls N]]\n"
            "       w8a8 bench --op quant|linear ...   (quantization / fused linear benchmarks)\n"
            "       w8a8 bench --op mma-peak [--json]  (mma.sync.m16n8k32 peak throughput)\n"
            "  --grid llama3  the 8 (N,K) of Llama-3.1 8B/70B × M in 1 16 64 … 8192 (peers.py)\n"
            "  --grid dsv3    the 6 (N,K) of DeepSeek-V3 × M in 1 16 64 128 512 … 4096, block\n"
            "                 scales unless --scale says otherwise\n"
            "  --accum promoted  FP8 partial sums promoted into fp32 every 128 K (default\n"
            "                 fast); cuBLASLt is then timed without fast accumulation\n"
            "  --grid decode  5 (N,K) with weights far larger than L2 × M in 1 2 4 8 16 32\n"
            "  --graph        time replays of a CUDA graph of each batch of calls (as peers.py\n"
            "                 times torch, and as an engine that captures graphs runs them);\n"
            "                 default: the calls launched from the host, batch after batch\n"
            "  --batch N      calls a sample (1…1000); default with --graph 20, peers.py's\n"
            "                 replay, else as many as take 1 ms (a long kernel then runs in\n"
            "                 short bursts, at clocks 20 calls in a row do not hold)\n"
            "  --json         one object per provider and shape: provider, dtype, scale, m, n, k,\n"
            "                 us, tflops, gbps (peers.py's fields); ours also family, config,\n"
            "                 match and source: the kernel the dispatcher ran and why (as\n"
            "                 cache explain says)\n"
            "  --host-overhead  host time per w8a8_scaled_mm call on a cached key, beside the\n"
            "                 driver's floor (bare cuLaunchKernelEx of the same launch,\n"
            "                 interleaved) and the difference; with --json one object with\n"
            "                 host_us, floor_us, over_floor_us (and no \"us\" field)\n"
            "A shape that fails is reported and the rest still run; the exit status is then 1.\n",
            cli_model_names());
}

static bool add_shape(bench_cli *b, long long m, long long n, long long k)
{
    if (b->shape_count == BENCH_MAX_SHAPES)
        return false;
    b->shapes[b->shape_count][0] = m;
    b->shapes[b->shape_count][1] = n;
    b->shapes[b->shape_count][2] = k;
    b->shape_count++;
    return true;
}

/* peers.py's GRIDS: (N, K) pairs × Ms. */
typedef struct bench_grid {
    const char *name;
    const long long (*nk)[2];
    size_t nk_count;
    const long long *ms;
    size_t m_count;
} bench_grid;

static const long long llama_nk[][2] = {{6144, 4096},  {4096, 4096},  {28672, 4096},
                                        {4096, 14336}, {10240, 8192}, {8192, 8192},
                                        {57344, 8192}, {8192, 28672}};
static const long long llama_m[] = {1, 16, 64, 128, 256, 512, 1024, 2048, 4096, 8192};
static const long long small_nk[][2] = {{4096, 4096}, {28672, 4096}};
static const long long small_m[] = {1, 128, 4096};
/* DeepSeek-V3 block-FP8 linear layers at TP=1 */
static const long long dsv3_nk[][2] = {{2112, 7168}, {24576, 1536}, {32768, 512},
                                       {7168, 16384}, {4096, 7168}, {7168, 2048}};
static const long long dsv3_m[] = {1, 16, 64, 128, 512, 1024, 2048, 4096};
/* decode: weights far larger than L2 */
static const long long decode_nk[][2] = {{4096, 14336}, {8192, 8192}, {8192, 28672},
                                         {28672, 4096}, {57344, 8192}};
static const long long decode_m[] = {1, 2, 4, 8, 16, 32};

#define BENCH_GRID(name, nk, ms)                                                         \
    { name, nk, sizeof nk / sizeof nk[0], ms, sizeof ms / sizeof ms[0] }
static const bench_grid bench_grids[] = {
    BENCH_GRID("llama3", llama_nk, llama_m),
    BENCH_GRID("small", small_nk, small_m),
    BENCH_GRID("dsv3", dsv3_nk, dsv3_m),
    BENCH_GRID("decode", decode_nk, decode_m),
};

static bool add_grid(bench_cli *b, const char *name)
{
    for (size_t g = 0; g < sizeof bench_grids / sizeof bench_grids[0]; g++) {
        const bench_grid *grid = &bench_grids[g];
        if (strcmp(grid->name, name) != 0)
            continue;
        for (size_t i = 0; i < grid->nk_count; i++)
            for (size_t j = 0; j < grid->m_count; j++)
                add_shape(b, grid->ms[j], grid->nk[i][0], grid->nk[i][1]);
        /* the DeepSeek-V3 layers are block-scaled, as peers.py's torch.block on that grid */
        if (strcmp(name, "dsv3") == 0 && !b->spec.scale_given)
            b->spec.a_scale = b->spec.b_scale = W8A8_SCALE_BLOCK;
        return true;
    }
    return false;
}

static int bench_option(bench_cli *b, int argc, char **argv, int *i)
{
    const char *opt = argv[*i];
    static const char *const flags[] = {"--json", "--verify", "--host-overhead", "--no-cublaslt",
                                        "--graph"};
    bool *fields[] = {&b->json, &b->verify, &b->host_overhead, &b->no_cublaslt, &b->graph};
    for (size_t f = 0; f < sizeof flags / sizeof flags[0]; f++)
        if (strcmp(opt, flags[f]) == 0) {
            *fields[f] = true;
            return 1;
        }
    static const char *const valued[] = {"--shape",   "--model", "--m",    "--grid",
                                         "--samples", "--calls", "--batch"};
    const size_t count = sizeof valued / sizeof valued[0];
    size_t which = 0;
    while (which < count && strcmp(opt, valued[which]) != 0)
        which++;
    if (which == count)
        return 0;
    if (*i + 1 >= argc) {
        cli_usage_error("%s needs a value", opt);
        return -1;
    }
    const char *v = argv[++*i];
    long long m = 0, n = 0, k = 0;
    bool ok = true;
    switch (which) {
    case 0: ok = cli_parse_shape(v, &m, &n, &k) && add_shape(b, m, n, k); break;
    case 1: b->model = v; break;
    case 2: ok = cli_parse_list(v, 1, b->ms, BENCH_MAX_MS, &b->m_count); break;
    case 3: b->grid = v; break;
    case 4: b->samples = atoi(v); ok = b->samples > 0; break;
    case 5: b->calls = atoi(v); ok = b->calls > 0; break;
    case 6: b->batch = atoi(v); ok = b->batch > 0 && b->batch <= W8A8_BENCH_MAX_BATCH; break;
    }
    if (!ok) {
        cli_usage_error("%s: bad value '%s'", opt, v);
        return -1;
    }
    return 1;
}

/* Model layers × Ms (default: the llama3 grid's Ms) and the grid, after all options. */
static int bench_shapes(bench_cli *b)
{
    if (b->grid && !add_grid(b, b->grid))
        return cli_usage_error("--grid: '%s' is not one of " BENCH_GRID_NAMES, b->grid);
    if (b->model) {
        static const long long default_ms[] = {1, 16, 64, 128, 256, 512, 1024, 2048, 4096, 8192};
        size_t count = 0;
        bool block = false;
        const cli_layer *layers = cli_model_layers(b->model, &count, &block);
        if (!layers)
            return cli_usage_error("--model: unknown model '%s' (%s)", b->model, cli_model_names());
        if (block && !b->spec.scale_given)
            b->spec.a_scale = b->spec.b_scale = W8A8_SCALE_BLOCK;
        const long long *ms = b->m_count ? b->ms : default_ms;
        size_t m_count = b->m_count ? b->m_count : sizeof default_ms / sizeof default_ms[0];
        for (size_t l = 0; l < count; l++)
            for (size_t i = 0; i < m_count; i++)
                add_shape(b, ms[i], layers[l].n, layers[l].k);
    }
    if (!b->shape_count)
        add_grid(b, "small");
    return 0;
}

static int bench_parse(bench_cli *b, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            bench_usage(stdout);
            return 0;
        }
        int r = cli_problem_option(argc, argv, &i, &b->spec);
        if (r == 0)
            r = bench_option(b, argc, argv, &i);
        if (r < 0)
            return 2;
        if (r == 0) {
            cli_usage_error("bench: unknown option '%s'", argv[i]);
            bench_usage(stderr);
            return 2;
        }
    }
    return bench_shapes(b) ? 2 : -1;
}

/* ---- running ---------------------------------------------------------------------------------- */

static double round_to(double v, double unit) { return (double)(long long)(v / unit + 0.5) * unit; }

/* One timed provider and shape; kernel: what the dispatcher ran (our rows), or NULL. */
static void print_result(const bench_cli *b, const char *provider, const w8a8_problem *p,
                         const w8a8_bench_result *r, double baseline_us, const w8a8_explain *kernel)
{
    if (b->json) {
        printf("{\"provider\": \"%s\", \"dtype\": \"%s\", \"scale\": \"%s\", \"accum\": \"%s\", "
               "\"m\": %lld, \"n\": %lld, \"k\": %lld, \"us\": %.2f, \"tflops\": %.1f, "
               "\"gbps\": %.1f",
               provider, w8a8_dtype_name(p->a_type), cli_scale_label(&b->spec),
               w8a8_accum_name(p->accum), (long long)p->m,
               (long long)p->n, (long long)p->k, round_to(r->median_us, 0.01),
               round_to(r->tflops, 0.1), round_to(r->gbps, 0.1));
        if (kernel) {
            const char *fields[][2] = {{"family", kernel->family}, {"config", kernel->config},
                                       {"match", kernel->match}, {"source", kernel->source}};
            for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
                printf(", \"%s\": ", fields[i][0]);
                cli_json_string(stdout, fields[i][1]);
            }
        }
        printf("}\n");
        fflush(stdout);
        return;
    }
    char shape[64], vs[32] = "";
    snprintf(shape, sizeof shape, "%lldx%lldx%lld", (long long)p->m, (long long)p->n, (long long)p->k);
    if (baseline_us > 0)
        snprintf(vs, sizeof vs, "%.2fx", baseline_us / r->median_us);
    printf("%-9s %-5s %-12s %-20s %10.2f %9.1f %9.1f %8.2f %9s", provider,
           w8a8_dtype_name(p->a_type), cli_scale_label(&b->spec), shape, r->median_us, r->tflops,
           r->gbps, r->host_us, vs);
    if (kernel)
        printf("  %s %s (%s)", kernel->family, kernel->config, kernel->match);
    printf("\n");
    fflush(stdout);
}

static void print_failure(const bench_cli *b, const char *provider, const w8a8_problem *p,
                          const char *message)
{
    if (b->json) {
        printf("{\"provider\": \"%s\", \"m\": %lld, \"n\": %lld, \"k\": %lld, \"error\": ", provider,
               (long long)p->m, (long long)p->n, (long long)p->k);
        cli_json_string(stdout, message);
        printf("}\n");
    } else {
        printf("%-9s %lldx%lldx%lld: %s\n", provider, (long long)p->m, (long long)p->n,
               (long long)p->k, message);
    }
    fflush(stdout);
}

/* cuBLASLt on the same harness; its time, or −1 when it did not run. */
static double bench_cublaslt(bench_cli *b, w8a8_context *ctx, const w8a8_problem *p,
                             const w8a8_bench_options *base)
{
    if (!b->have_lt || !lt_supports(p))
        return -1.0;
    if (!b->lt.handle && b->lt.create(&b->lt.handle) != 0) {
        fprintf(stderr, "w8a8: cublasLtCreate failed: no cuBLASLt comparison\n");
        b->have_lt = false;
        return -1.0;
    }
    lt_case c;
    w8a8_bench_options o = *base;
    o.workspace_bytes = LT_WORKSPACE_BYTES;
    w8a8_bench_result r;
    w8a8_status st = lt_case_init(&c, &b->lt, p) == 0
                         ? w8a8_bench_time(ctx, p, lt_launch, &c, &o, &r)
                         : W8A8_UNSUPPORTED;
    double us = -1.0;
    if (st == W8A8_OK) {
        print_result(b, "cublaslt", p, &r, -1.0, NULL);
        us = r.median_us;
    } else {
        char message[256];
        snprintf(message, sizeof message, "cuBLAS status %d: %s", c.status,
                 st == W8A8_UNSUPPORTED ? "setup failed" : w8a8_errmsg(ctx));
        print_failure(b, "cublaslt", p, message);
    }
    lt_case_free(&c);
    return us;
}

/* The target for the host time of a cached call (issue 15). */
#define BENCH_HOST_TARGET_US 1.5

/* --host-overhead: ours, the driver's floor for the same launch, and the difference; one line
 * of "name value" fields (text) or one JSON object without a "us" field (so readers of the
 * timing rows skip it). kernel: bench_shape's explain of the key (NULL when it failed). */
static void bench_host(bench_cli *b, w8a8_context *ctx, const w8a8_problem *p,
                       const w8a8_explain *kernel)
{
    int calls = b->calls > 0 ? b->calls : BENCH_DEFAULT_CALLS;
    w8a8_launch_floor r;
    w8a8_status st = w8a8_bench_launch_floor(ctx, p, calls, &r);
    if (st != W8A8_OK || !kernel) {
        char message[2300];
        snprintf(message, sizeof message, "%s: %s", w8a8_status_string(st), w8a8_errmsg(ctx));
        if (b->json)
            print_failure(b, "w8a8jit host_overhead", p, message);
        else
            printf("host overhead %lldx%lldx%lld: %s\n", (long long)p->m, (long long)p->n,
                   (long long)p->k, message);
        fflush(stdout);
        return;
    }
    double over = r.us_per_call - r.floor_us_per_call;
    if (b->json) {
        printf("{\"provider\": \"w8a8jit\", \"measure\": \"host_overhead\", \"dtype\": \"%s\", "
               "\"scale\": \"%s\", \"m\": %lld, \"n\": %lld, \"k\": %lld, \"family\": ",
               w8a8_dtype_name(p->a_type), cli_scale_label(&b->spec), (long long)p->m,
               (long long)p->n, (long long)p->k);
        cli_json_string(stdout, kernel->family);
        printf(", \"calls\": %d, \"launches_per_call\": %d, \"host_us\": %.3f, "
               "\"host_min_us\": %.3f, \"floor_us\": %.3f, \"floor_min_us\": %.3f, "
               "\"over_floor_us\": %.3f, \"target_us\": %.2f}\n",
               r.calls, r.launches_per_call, r.us_per_call, r.min_us_per_call,
               r.floor_us_per_call, r.floor_min_us_per_call, over, BENCH_HOST_TARGET_US);
    } else {
        printf("host overhead %lldx%lldx%lld: %.2f us per w8a8_scaled_mm call (fastest chunk "
               "%.2f us; %d calls; target <= %.1f us); floor %.2f us per bare cuLaunchKernelEx "
               "of the same launch (fastest chunk %.2f us; %d per call); ours - floor %.2f us; "
               "family %s\n",
               (long long)p->m, (long long)p->n, (long long)p->k, r.us_per_call,
               r.min_us_per_call, r.calls, BENCH_HOST_TARGET_US, r.floor_us_per_call,
               r.floor_min_us_per_call, r.launches_per_call, over, kernel->family);
    }
    fflush(stdout);
}

/* One shape: ours, then cuBLASLt. Returns BENCH_SHAPE_OK, BENCH_SHAPE_FAILED (printed; the
 * next shapes still run) or BENCH_SHAPE_FATAL (the device is gone). */
enum { BENCH_SHAPE_OK, BENCH_SHAPE_FAILED, BENCH_SHAPE_FATAL };
static int bench_shape(bench_cli *b, w8a8_context *ctx, const long long shape[3])
{
    w8a8_problem p;
    cli_problem_make(&p, shape[0], shape[1], shape[2], &b->spec);
    /* --graph: peers.py's replays of 20 calls unless --batch says otherwise */
    w8a8_bench_options o = {.samples = b->samples, .verify = b->verify, .graph = b->graph,
                            .batch = b->batch ? b->batch : b->graph ? W8A8_BENCH_GRAPH_BATCH : 0};
    w8a8_bench_result ours;
    w8a8_status st = w8a8_bench_time(ctx, &p, NULL, NULL, &o, &ours);
    double theirs = st == W8A8_NO_DEVICE ? -1.0 : bench_cublaslt(b, ctx, &p, &o);
    w8a8_explain e; /* the kernel the dispatcher ran, named in our row and --host-overhead's */
    bool explained = st == W8A8_OK && w8a8_dispatch_explain(ctx, &p, &e) == W8A8_OK;
    if (st == W8A8_OK) {
        print_result(b, "w8a8jit", &p, &ours, theirs, explained ? &e : NULL);
    } else {
        char message[2300];
        snprintf(message, sizeof message, "%s: %s", w8a8_status_string(st), w8a8_errmsg(ctx));
        print_failure(b, "w8a8jit", &p, message);
    }
    if (b->host_overhead && st == W8A8_OK)
        bench_host(b, ctx, &p, explained ? &e : NULL);
    if (st == W8A8_NO_DEVICE || st == W8A8_CUDA_ERROR)
        return BENCH_SHAPE_FATAL;
    return st == W8A8_OK ? BENCH_SHAPE_OK : BENCH_SHAPE_FAILED;
}

int cmd_bench(int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], "--op") == 0) {
            if (strcmp(argv[i + 1], "quant") == 0)
                return cli_bench_quant(argc, argv);
            if (strcmp(argv[i + 1], "linear") == 0)
                return cli_bench_linear(argc, argv);
            if (strcmp(argv[i + 1], "mma-peak") == 0)
                return cli_bench_mma_peak(argc, argv);
            if (strcmp(argv[i + 1], "gemm") != 0)
                return cli_usage_error("--op: '%s' is not gemm, quant, linear or mma-peak",
                                       argv[i + 1]);
            memmove(&argv[i], &argv[i + 2], (size_t)(argc - i - 2) * sizeof *argv);
            argc -= 2;
            break;
        }
    bench_cli *b = calloc(1, sizeof *b);
    if (!b)
        return cli_fail("out of memory");
    b->spec.ab_type = W8A8_E4M3;
    b->spec.out_type = W8A8_BF16;
    int rc = bench_parse(b, argc, argv);
    if (rc >= 0) {
        free(b);
        return rc;
    }
    w8a8_context *ctx = cli_open(0);
    if (!ctx) {
        free(b);
        return 1;
    }
    const char *why = "";
    if (!b->no_cublaslt && !(b->have_lt = lt_load(&b->lt, &why)))
        fprintf(stderr, "w8a8: no cuBLASLt comparison (%s)\n", why);
    if (!b->json)
        printf("%-9s %-5s %-12s %-20s %10s %9s %9s %8s %9s\n", "provider", "dtype", "scale",
               "shape (MxNxK)", "us", "TFLOP/s", "GB/s", "host us", "vs cuBLASLt");
    rc = 0; /* 1 when any shape failed: the others still run, unless the device is gone */
    for (size_t i = 0; i < b->shape_count; i++) {
        int outcome = bench_shape(b, ctx, b->shapes[i]);
        if (outcome != BENCH_SHAPE_OK)
            rc = 1;
        if (outcome == BENCH_SHAPE_FATAL)
            break;
    }
    if (b->lt.handle)
        b->lt.destroy(b->lt.handle);
    w8a8_context_close(ctx);
    free(b);
    return rc;
}
