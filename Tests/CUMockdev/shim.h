#include <umockdev.h>
#include <spawn.h>

/* glibc ≥ 2.34 has it; its header declares it only under _GNU_SOURCE. The tests' child
   processes start with no descriptor of the test process but 0–2. */
int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);
