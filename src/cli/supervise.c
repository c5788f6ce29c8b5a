/* Restarting a command whose process a hung kernel made useless: a kernel that never finishes
 * keeps the GPU busy, so the process that launched it can do no more GPU work (the library
 * reports W8A8_HUNG and the command exits with CLI_EXIT_HUNG). The work runs in a child
 * process; when the child exits that way, a new child starts it again, and resumes (`tune`
 * skips what was measured and what hung). The parent never touches CUDA, which does not
 * survive fork(). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "cli.h"

/* The child's exit status as the command's, or -1 when it did not exit (a signal). */
static int child_wait(pid_t pid, int *signal_number)
{
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return cli_fail("waitpid: %s", strerror(errno));
    if (WIFSIGNALED(status)) {
        *signal_number = WTERMSIG(status);
        return -1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int cli_supervise(const char *command, int restarts, int (*work)(void *user), void *user)
{
    for (int restart = 0;; restart++) {
        fflush(stdout); /* what the parent buffered must not be written twice */
        fflush(stderr);
        pid_t pid = fork();
        if (pid < 0)
            return cli_fail("%s: fork: %s", command, strerror(errno));
        if (pid == 0) {
#ifdef __linux__
            prctl(PR_SET_PDEATHSIG, SIGTERM); /* a killed parent takes its child along */
#endif
            exit(work(user));
        }
        int signal_number = 0;
        int rc = child_wait(pid, &signal_number);
        if (rc < 0)
            return cli_fail("%s: the working process died of signal %d (%s)", command,
                            signal_number, strsignal(signal_number));
        if (rc != CLI_EXIT_HUNG)
            return rc;
        if (restart == restarts) {
            fprintf(stderr, "w8a8: %s: kernels hung %d times; run the same command again to "
                            "resume\n", command, restart + 1);
            return CLI_EXIT_HUNG;
        }
        fprintf(stderr, "w8a8: %s: starting again in a new process to resume past the hung "
                        "kernel (restart %d of at most %d)\n", command, restart + 1, restarts);
    }
}
