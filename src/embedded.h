/* The templates and tuning spaces embedded into the library at build time
 * (cmake/embed.cmake writes the table). */
#ifndef W8A8_EMBEDDED_H
#define W8A8_EMBEDDED_H
#include <stddef.h>

typedef struct embedded_file {
    const char *kind; /* "templates" or "scripts" */
    const char *name; /* path below templates/ or scripts/, e.g. "common/types.cuh" */
    const char *data; /* NUL-terminated */
    size_t size;      /* bytes, without the NUL */
} embedded_file;

extern const embedded_file embedded_files[];
extern const size_t embedded_file_count;
#endif
