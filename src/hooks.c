/* Subsystems that hang state on the context (dispatcher, cache layers) release it here, so
 * context.c need not know them. Each subsystem's teardown accepts a context it never set up. */
#include "internal.h"

void context_close_hooks(w8a8_context *ctx)
{
    (void)ctx;
}
