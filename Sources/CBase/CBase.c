#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <unistd.h>

#include "CBase.h"

int CBase_pipeCloseOnExec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}

int CBase_addChdir(posix_spawn_file_actions_t *actions, const char *directory) {
    return posix_spawn_file_actions_addchdir_np(actions, directory);
}

int CBase_addCloseFrom(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

int CBase_nameThisThread(const char *name) {
    return pthread_setname_np(pthread_self(), name);
}
