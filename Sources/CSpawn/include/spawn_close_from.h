#ifndef MOTIOND_SPAWN_CLOSE_FROM_H
#define MOTIOND_SPAWN_CLOSE_FROM_H

#include <spawn.h>

/// posix_spawn_file_actions_addclosefrom_np (glibc 2.34, a GNU extension Swift's Glibc module
/// does not show): the child closes every descriptor from `from` on before it executes.
/// 0, or an errno value.
int motiond_spawn_close_from(posix_spawn_file_actions_t *actions, int from);

#endif
