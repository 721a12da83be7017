#ifndef MOTIOND_LIBRARY_OUTPUT_H
#define MOTIOND_LIBRARY_OUTPUT_H

#include <stddef.h>
#include <sys/types.h>

/// Receives what is written to the C `stderr` stream: `size` bytes at `buffer`; returns how
/// many it took (all of them).
typedef ssize_t (*motiond_output_writer)(void *cookie, const char *buffer, size_t size);

/// Replaces the C `stderr` stream (file descriptor 2 stays as it is) with an unbuffered one
/// whose every write goes to `writer`, in the writing thread. 0, or -1 with errno set.
int motiond_replace_stderr(motiond_output_writer writer);

#endif
