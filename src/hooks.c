/* Subsystems that hang state on the context (dispatcher, cache layers) release it here, so
 * context.c need not know them. Each subsystem's teardown accepts a context it never set up. */
#include "internal.h"
#include "dispatch.h"
#include "cache.h"

void context_close_hooks(w8a8_context *ctx)
{
    dispatch_destroy(ctx); /* before the cache and the JIT: its plans point into both */
    cache_close(ctx);      /* accepts a context whose cache was never opened */
}
