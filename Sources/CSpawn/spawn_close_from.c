#define _GNU_SOURCE
#include "spawn_close_from.h"

int motiond_spawn_close_from(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}
