/* The dispatcher's internals (dispatch.c): the fallback chain a cache miss walks, shared with
 * the tuner (which re-plans keys it tuned), hooks.c (teardown) and the tests (which build
 * chains for synthetic devices and families). Prefix: dispatch_. */
#ifndef W8A8_DISPATCH_H
#define W8A8_DISPATCH_H

#include "cache.h"
#include "gemm.h"
#include "space.h"

typedef enum dispatch_reason {
    DISPATCH_TUNED = 0,     /* a cache row; choice.winner.match says how it matched */
    DISPATCH_SPACE_DEFAULT, /* the default config of the family's tuning space */
    DISPATCH_REFERENCE      /* the reference kernel */
} dispatch_reason;

/* One link of the chain: a family and a config to plan. */
typedef struct dispatch_choice {
    const gemm_family *family;
    char config[W8A8_CONFIG_BYTES];
    dispatch_reason reason;
    cache_winner winner; /* DISPATCH_TUNED only */
    char space[64];      /* DISPATCH_SPACE_DEFAULT: the space's name */
} dispatch_choice;

#define DISPATCH_MAX_CHOICES 8
/* cached choices of a chain: the winner and up to two runner-ups of its row */
#define DISPATCH_CACHED_MAX 3
#define DISPATCH_NOTES_BYTES 768

/* The picks for one problem, best first. The reference is always last. */
typedef struct dispatch_chain {
    dispatch_choice choices[DISPATCH_MAX_CHOICES];
    int count;
    char notes[DISPATCH_NOTES_BYTES]; /* why links were skipped ("" if none) */
} dispatch_chain;

/* Builds the chain of `problem` (validated) over `families` (NULL-terminated; gemm_families in
 * the library, fakes in tests): the cache winner for the key on `cache_dev` when it names a
 * family of the list that supports the problem, then up to DISPATCH_CACHED_MAX − 1 runner-ups
 * of its row that do (cache_lookup_ranked); each family's space default (space_load by
 * family->space, applies, default, on `space_dev`); the reference family (the one named
 * "reference_gemm" in the list, else gemm_family_reference). cache_dev / space_dev NULL skip
 * those links. Cache and script errors are not fatal: they become notes. Never fails except
 * W8A8_INTERNAL when the list has no usable reference. */
w8a8_status dispatch_chain_build(w8a8_context *ctx, const gemm_family *const *families,
                                 const w8a8_problem *problem, const cache_device *cache_dev,
                                 const space_device *space_dev, dispatch_chain *chain);

/* What w8a8_dispatch_explain says about the chain's first link (tests build chains for
 * synthetic devices and families and check this). */
void dispatch_chain_explain(const dispatch_chain *chain, const w8a8_problem *problem,
                            w8a8_explain *out);

/* "exact", "product", "arch (foreign device)", "nearest bucket", "space default",
 * "reference": the reason of a choice in words. */
const char *dispatch_reason_text(const dispatch_choice *choice);

/* The dispatcher's reading of W8A8_TUNE: NULL or empty → off. */
w8a8_status dispatch_tune_mode_from_env(const char *value, w8a8_tune_mode *mode);

/* Re-picks and re-plans the key of `problem` if the context already dispatched it (after
 * tuning). Readers see the old plan or the new one, never a torn one. */
w8a8_status dispatch_refresh(w8a8_context *ctx, const w8a8_problem *problem);

/* Releases the dispatcher's table (hooks.c). Accepts a context that never dispatched. */
void dispatch_destroy(w8a8_context *ctx);

#endif
