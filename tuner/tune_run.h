/* What the files of one tuning run share: tune_run.c runs it (w8a8_tune, one thread per
 * device), tune_plan.c builds every key's candidate list and hands the distinct kernels to the
 * compile queue, tune.c times one key. */
#ifndef W8A8_TUNE_RUN_H
#define W8A8_TUNE_RUN_H

#include <pthread.h>

#include "cache.h"
#include "gemm.h"
#include "space.h"
#include "tune.h"

#define TUNE_MAX_SPACES 16
/* With a budget and no --max-candidates, each space offers a key at most this many configs
 * not measured before: more could not be timed in any budget a run is given, and the list and
 * the compile queue stay small. A resumed run goes deeper, as measured configs do not count. */
#define TUNE_BUDGET_CANDIDATES 256

typedef struct candidate {
    const gemm_family *family;
    char template_name[64];
    char arch[16];
    char space[64];
    char config[W8A8_CONFIG_BYTES];
    double rank;
    size_t space_pos;         /* rank position inside its own space (ranks of two spaces are
                                 in different units and never compared) */
    size_t order;             /* position in the list as collected (space order) */
    bool is_default;
    bool seeded;              /* a neighbouring M bucket's winner, tried early */
    bool variant;             /* a finalist's config with one of its space's variants */
    size_t parent;            /* a variant's: that finalist's index in the list */
    size_t cache_seed;        /* 1 + its place among the cache's winners timed first (a plain
                                 tune: tune_plan.c's cache_seeds); 0: not one */
    bool explored;            /* in the space's exploration sample (options.explore) */
    bool measured_before;     /* the database has an "ok" row: not measured again */
    bool hung_before;         /* a "hung" row of its template as it is now: never launched
                                 again (not even a default, not even with force) */
    bool has_kernel;          /* `kernel` names its entry in the compile queue */
    size_t kernel;
    w8a8_kernel_info info;    /* of its kernel, once compiled */
    char error[256];
    gemm_plan plan;
    bool usable;              /* planned, verified and timed in the quick pass */
    double quick_us, final_us;
    double verify_error;
} candidate;

typedef struct candidate_list {
    candidate *items;
    size_t count, cap;
} candidate_list;

/* Whether a candidate is neither compiled nor timed by this run: measured before (but a
 * default is timed again: it anchors the key's "vs default") or hung before. */
bool candidate_skipped(const candidate *c);

/* A config of a key that hung before (tune_plan.c reads them from the cache per key). */
typedef struct hung_config {
    char family[64];
    char config[W8A8_CONFIG_BYTES];
} hung_config;

/* One key of the run, planned before any timing. */
typedef struct problem_plan {
    w8a8_problem problem;     /* m = its bucket */
    cache_key key;
    w8a8_status status;       /* W8A8_OK, or why the key is not tuned */
    char message[256];
    candidate_list list;      /* defaults first, then the spaces interleaved by rank */
    size_t *kernels;          /* the compile queue's indices, in the order of the list */
    size_t kernel_count;
    hung_config *hung;        /* configs with a "hung" row for this key on this product */
    size_t hung_count;
    uint64_t *measured;       /* hashes of the configs measured "ok" on this device before,
                                 sorted (user database only) */
    size_t measured_count;
} problem_plan;

#define TUNE_MAX_DEVICES 64

/* What the timing threads of several devices share (tune.c): the next key to take and the
 * keys each is timing, so the compile queue serves the earliest one. */
typedef struct tune_shared {
    pthread_mutex_t lock;          /* the fields below and the progress callback */
    size_t next;                   /* the next key no device has taken */
    size_t active[TUNE_MAX_DEVICES];
    size_t devices;
    w8a8_tune_result *results;
    bool *finished;                /* per key: its result is final (read under lock) */
} tune_shared;

/* One w8a8_tune call, as one device's timing thread sees it (each device has a copy; the
 * plans, spaces and compile queue are shared). */
typedef struct tune_run {
    tune_shared *shared;
    size_t device_index;
    w8a8_context *ctx;
    w8a8_tune_options options;
    w8a8_tune_progress_fn progress;
    void *user;
    double started;
    bool budget_spent;
    double problem_deadline; /* a fair share of what is left, per problem; 0: none */
    double quick_deadline;   /* the part of that share the quick pass may use */
    double problem_share;    /* the share's length in seconds; 0: no budget */
    bool problem_cut;        /* a deadline stopped this problem's work early */
    cache_device cache_dev;
    space_device space_dev;
    double watchdog_seconds; /* resolved from options.watchdog_seconds */
    int driver_version, nvrtc_version;
    space *spaces[TUNE_MAX_SPACES];
    size_t space_count;
    problem_plan *plans;     /* options.problem_count */
    kernel_queue *kernels;
    size_t **demand_lists;   /* the plans' kernel lists, as the queue borrows them */
    size_t *demand_lengths;
    w8a8_tune_profile profile;
    /* template name → content hash, computed once per run */
    char hash_names[TUNE_MAX_SPACES][64];
    char hash_values[TUNE_MAX_SPACES][65];
    size_t hash_count;
    /* the problem at hand */
    size_t problem_index;
    w8a8_problem problem;
    cache_key key;
    double best_us;
    char best_config[W8A8_CONFIG_BYTES + 64];
    /* the key's measurements not yet written (tune.c; NULL between keys) */
    struct record_batch *pending;
    /* the first error that stopped a key (not a budget), for the call's status */
    w8a8_status failed;
    char failure[W8A8_ERRMSG_BYTES];
} tune_run;

/* tune_plan.c: loads the spaces, plans every key (the spaces evaluated in parallel), creates
 * the compile queue with every distinct kernel and starts it. */
w8a8_status tune_plan_all(tune_run *run);
void tune_plan_free(tune_run *run);
/* Moves the winners of keys already tuned in this run whose M bucket neighbours plan i's
 * (same class, N and K; M within a factor of two) to the front of its list, after the
 * defaults, adding them when the list lacks them. */
w8a8_status tune_plan_seed(tune_run *run, size_t i);
/* Appends to p's list a variant of its candidate `parent` (of space s): the same kernel,
 * rank and space position under `config`, added as any config of s is (the database asked
 * whether it was measured or hung before); *out is the new candidate, or NULL when the list
 * has that config already. The list may move: hold indices, not pointers, across the call. */
w8a8_status tune_plan_variant(tune_run *run, problem_plan *p, const space *s, size_t parent,
                              const char *config, candidate **out);

/* tune.c: whether the run's budget and the key's share allow more work (records a cut); one
 * key's quick and final passes (tune_run.c calls it per key). */
bool tune_budget_left(tune_run *run);
/* Tells the progress callback that the first `planned` keys are planned (planned >= 1). */
void tune_report_planned(tune_run *run, size_t planned);
w8a8_status tune_problem(tune_run *run, problem_plan *plan, w8a8_tune_result *res);
/* The content hash of a template as the run records it in its rows ("" when unknown),
 * memoized for the run. The string lives as long as the run. */
const char *tune_template_hash(tune_run *run, const char *template_name);


#endif
