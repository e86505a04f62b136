#ifndef CBASE_H
#define CBASE_H

#include <pthread.h>
#include <spawn.h>

/// pipe2(fds, O_CLOEXEC): glibc declares pipe2 only under _GNU_SOURCE, which Swift's Glibc module is built without.
int CBase_pipeCloseOnExec(int fds[2]);

/// posix_spawn_file_actions_addchdir_np: a GNU extension Swift's Glibc module does not show.
int CBase_addChdir(posix_spawn_file_actions_t *actions, const char *directory);

/// posix_spawn_file_actions_addclosefrom_np (glibc 2.34): a GNU extension Swift's Glibc module does not show.
int CBase_addCloseFrom(posix_spawn_file_actions_t *actions, int from);

/// pthread_setname_np for the calling thread: a GNU extension Swift's Glibc module does not show.
int CBase_nameThisThread(const char *name);

#endif
