#ifndef CCHILDPROCESS_H
#define CCHILDPROCESS_H

#include <spawn.h>

/// pipe2(fds, O_CLOEXEC): glibc declares pipe2 only under _GNU_SOURCE, which Swift's Glibc module is built without.
int CChildProcess_pipeCloseOnExec(int fds[2]);

/// posix_spawn_file_actions_addchdir_np: a GNU extension Swift's Glibc module does not show.
int CChildProcess_addChdir(posix_spawn_file_actions_t *actions, const char *directory);

#endif
