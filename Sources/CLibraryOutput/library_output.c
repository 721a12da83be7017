// fopencookie is a GNU extension, which Swift's Glibc module does not import.
#define _GNU_SOURCE
#include <stdio.h>
#include "library_output.h"

int motiond_replace_stderr(motiond_output_writer writer) {
    cookie_io_functions_t functions = { .read = NULL, .write = writer, .seek = NULL, .close = NULL };
    FILE *stream = fopencookie(NULL, "w", functions);
    if (stream == NULL) return -1;
    // Unbuffered: each fprintf arrives whole, at once (nothing waits in a buffer at a crash).
    setvbuf(stream, NULL, _IONBF, 0);
    stderr = stream;
    return 0;
}
