/* Appends one line to argv[1]: the signals this process started with
 * blocked (of INT, TERM, HUP, QUIT, PIPE, USR1) and those it ignores.
 * Written by the program itself (sigprocmask, sigaction), so that under
 * emulation it is the guest's own state that is read. 1000 FP adds of a
 * volatile: 1000 flops, 16000 bytes. */
#include <signal.h>
#include <stdio.h>

int main(int argc, char **argv) {
    static const int sig[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGUSR1};
    static const char *name[] = {"INT", "TERM", "HUP", "QUIT", "PIPE", "USR1"};
    sigset_t now;
    sigprocmask(SIG_BLOCK, NULL, &now);
    FILE *f = fopen(argv[1], "a");
    if (!f)
        return 1;
    fprintf(f, "blocked=");
    for (int i = 0; i < 6; i++)
        if (sigismember(&now, sig[i]))
            fprintf(f, "%s,", name[i]);
    fprintf(f, " ignored=");
    for (int i = 0; i < 6; i++) {
        struct sigaction a;
        sigaction(sig[i], NULL, &a);
        if (a.sa_handler == SIG_IGN)
            fprintf(f, "%s,", name[i]);
    }
    fprintf(f, "\n");
    /* A little FP work, so that its point can be placed. */
    volatile double x = 0;
    for (int i = 0; i < 1000; i++)
        x += 1.5;
    return fclose(f) != 0 || x != 1500.0;
}
