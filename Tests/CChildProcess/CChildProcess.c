#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <unistd.h>

#include "CChildProcess.h"

int CChildProcess_pipeCloseOnExec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}

int CChildProcess_addChdir(posix_spawn_file_actions_t *actions, const char *directory) {
    return posix_spawn_file_actions_addchdir_np(actions, directory);
}
