/* The tuner's compile queue (tuner/kernel_queue.c), on the CPU with NVRTC: a kernel named by
 * many keys is added once; workers compile the demand while a waiter gets each kernel done
 * (compiling it itself when no worker has started it); a kernel that cannot compile comes back
 * done with its error; the statistics add up; destroying a queue with work left stops it; on a
 * budget (kq_set_horizon) the next key's first kernels come before the current key's tail. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "testutil.h"
#include "tune.h"

#define REF "reference_gemm"
static const char *const defines[] = {
    "A_TYPE=1,B_TYPE=1,OUT_TYPE=4,BIAS_TYPE=0,A_SCALE=0,B_SCALE=0,AZP=0",
    "A_TYPE=1,B_TYPE=1,OUT_TYPE=5,BIAS_TYPE=0,A_SCALE=1,B_SCALE=1,AZP=0",
    "A_TYPE=3,B_TYPE=3,OUT_TYPE=6,BIAS_TYPE=0,A_SCALE=0,B_SCALE=1,AZP=1",
    "A_TYPE=2,B_TYPE=1,OUT_TYPE=4,BIAS_TYPE=6,A_SCALE=2,B_SCALE=2,AZP=0",
};
#define KERNELS (sizeof defines / sizeof defines[0])
/* int8 A with an FP8 B: the template's static_assert refuses it */
#define BAD "A_TYPE=3,B_TYPE=1,OUT_TYPE=4,BIAS_TYPE=0,A_SCALE=0,B_SCALE=0,AZP=0"

START_TEST(each_kernel_once_and_every_wait_returns_it_done)
{
    w8a8_context *ctx = test_ctx_open_fresh(NULL, 0);
    kernel_queue *q = NULL;
    ck_assert_int_eq(kq_create(ctx, 2, &q), W8A8_OK);
    /* three keys that want overlapping kernels, in different orders */
    size_t lists[3][KERNELS + 1], lengths[3] = {0, 0, 0};
    for (size_t key = 0; key < 3; key++)
        for (size_t i = 0; i < KERNELS; i++) {
            size_t which = (i + key) % KERNELS, index = 99;
            ck_assert_int_eq(kq_add(q, REF, "sm_80", defines[which], &index), W8A8_OK);
            ck_assert_uint_eq(index, which); /* first seen in key 0's order 0, 1, 2, 3 */
            lists[key][lengths[key]++] = index;
        }
    size_t bad = 0;
    ck_assert_int_eq(kq_add(q, REF, "sm_80", BAD, &bad), W8A8_OK);
    ck_assert_uint_eq(bad, KERNELS);
    lists[2][lengths[2]++] = bad;
    /* the same defines for another arch are another kernel */
    size_t other = 0;
    ck_assert_int_eq(kq_add(q, REF, "sm_89", defines[0], &other), W8A8_OK);
    ck_assert_uint_eq(other, KERNELS + 1);
    const size_t *demand[3] = {lists[0], lists[1], lists[2]};
    kq_set_demand(q, demand, lengths, 3);
    kq_start(q);
    for (size_t key = 0; key < 3; key++) {
        kq_set_current(q, key);
        for (size_t i = 0; i < lengths[key]; i++) {
            const kq_kernel *k = kq_wait(q, demand[key][i]);
            ck_assert(k->done && !k->running);
            if (demand[key][i] == bad) {
                ck_assert(!k->compiled);
                ck_assert_msg(strstr(k->error, "COMPILE_ERROR") || strstr(k->error, "compile"),
                              "error: %s", k->error);
            } else {
                ck_assert_msg(k->compiled, "%s: %s", k->defines, k->error);
                ck_assert_int_gt(k->info.registers, 0);
            }
        }
    }
    const kq_kernel *k = kq_wait(q, other); /* not in any demand: compiled by the waiter */
    ck_assert(k->done && k->compiled);
    kq_stats s;
    kq_stats_get(q, &s);
    ck_assert_uint_eq(s.kernels, KERNELS + 2);
    ck_assert_uint_eq(s.built, KERNELS + 1);
    ck_assert_uint_eq(s.failed, 1);
    ck_assert_uint_ge(s.by_waiter, 1);
    ck_assert_uint_eq(s.built, s.compiled_fresh + s.from_store);
    ck_assert(s.busy_seconds > 0 && s.wall_seconds > 0 && s.wait_seconds >= 0);
    ck_assert_ptr_null(kq_kernel_at(q, KERNELS + 2));
    kq_destroy(q);
    w8a8_context_close(ctx);
}
END_TEST

/* A queue destroyed with most of its demand not compiled stops without waiting for it. */
START_TEST(destroy_with_work_left)
{
    w8a8_context *ctx = test_ctx_open_fresh(NULL, 0);
    kernel_queue *q = NULL;
    ck_assert_int_eq(kq_create(ctx, 1, &q), W8A8_OK);
    size_t list[KERNELS], length = KERNELS;
    for (size_t i = 0; i < KERNELS; i++)
        ck_assert_int_eq(kq_add(q, REF, "sm_86", defines[i], &list[i]), W8A8_OK);
    const size_t *demand[1] = {list};
    kq_set_demand(q, demand, &length, 1);
    kq_start(q);
    kq_set_current(q, 1); /* past the only key: nothing is wanted ahead any more */
    kq_stats s;
    kq_stats_get(q, &s);
    ck_assert_uint_le(s.built + s.failed, 1); /* at most the one started before */
    kq_destroy(q);
    kq_destroy(NULL);
    w8a8_context_close(ctx);
}
END_TEST

/* With a horizon the keys ahead are served in step: one worker, two keys of 12 kernels each,
 * and the smallest pace (KQ_MIN_PACE = 8 kernels per key ahead): key 1's first kernel is built
 * after key 0's ninth (scores 8 and 8: the current key wins the tie) and before its last, which
 * the order without a horizon would build first. */
START_TEST(horizon_serves_the_next_key_early)
{
    w8a8_context *ctx = test_ctx_open_fresh(NULL, 0);
    kernel_queue *q = NULL;
    ck_assert_int_eq(kq_create(ctx, 1, &q), W8A8_OK);
    enum { PER_KEY = 12 };
    size_t lists[2][PER_KEY], lengths[2] = {PER_KEY, PER_KEY};
    for (size_t key = 0; key < 2; key++)
        for (size_t i = 0; i < PER_KEY; i++) {
            char d[KQ_DEFINES_BYTES]; /* an unused macro makes each kernel distinct */
            snprintf(d, sizeof d, "%s,QUEUE_TEST_PAD=%zu", defines[0], key * PER_KEY + i);
            ck_assert_int_eq(kq_add(q, REF, "sm_80", d, &lists[key][i]), W8A8_OK);
        }
    const size_t *demand[2] = {lists[0], lists[1]};
    kq_set_demand(q, demand, lengths, 2);
    kq_set_horizon(q, 1e-9); /* any positive horizon this small gives the smallest pace */
    kq_start(q);
    const struct timespec tick = {0, 5 * 1000 * 1000};
    for (int waited = 0; waited < 12000 && !kq_kernel_at(q, lists[1][0])->done; waited++)
        nanosleep(&tick, NULL); /* one minute at most */
    ck_assert(kq_kernel_at(q, lists[1][0])->done);
    ck_assert(kq_kernel_at(q, lists[0][8])->done);
    ck_assert(!kq_kernel_at(q, lists[0][11])->done);
    for (size_t key = 0; key < 2; key++) {
        kq_set_current(q, key);
        for (size_t i = 0; i < PER_KEY; i++)
            ck_assert(kq_wait(q, lists[key][i])->compiled);
    }
    kq_destroy(q);
    w8a8_context_close(ctx);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kernel_queue");
    TCase *tc = tcase_create("queue");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, each_kernel_once_and_every_wait_returns_it_done);
    tcase_add_test(tc, destroy_with_work_left);
    tcase_add_test(tc, horizon_serves_the_next_key_early);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
