/* A minimal parallel-for on pthreads, for compiling tuning candidates with NVRTC (which is
 * thread-safe). Work items are handed out through one atomic counter; the calling thread
 * works too, so a pool of one thread spawns nothing. */
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "tune.h"

#define POOL_MAX_THREADS 256

typedef struct pool_job {
    pool_fn fn;
    void *user;
    size_t count;
    atomic_size_t next;
} pool_job;

static void *pool_worker(void *arg)
{
    pool_job *job = arg;
    for (;;) {
        size_t i = atomic_fetch_add(&job->next, 1);
        if (i >= job->count)
            return NULL;
        job->fn(job->user, i);
    }
}

int pool_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

void pool_run(int threads, size_t count, pool_fn fn, void *user)
{
    pool_job job = {.fn = fn, .user = user, .count = count};
    atomic_init(&job.next, 0);
    if (threads <= 0)
        threads = pool_cpu_count();
    if (threads > POOL_MAX_THREADS)
        threads = POOL_MAX_THREADS;
    if ((size_t)threads > count)
        threads = count ? (int)count : 1;
    pthread_t ids[POOL_MAX_THREADS];
    int started = 0;
    for (int i = 1; i < threads; i++) {
        /* A thread that cannot start only means less parallelism. */
        if (pthread_create(&ids[started], NULL, pool_worker, &job) == 0)
            started++;
    }
    pool_worker(&job);
    for (int i = 0; i < started; i++)
        pthread_join(ids[i], NULL);
}
