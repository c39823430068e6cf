// Starts ARGV[1] with the two arguments after it, by system() (the command
// line), posix_spawnp() and execlp() in turn, waiting for each; the last
// replaces this process. Built dynamically it is followed; built with
// -static its children start by raw system calls that no preload sees.
// Does no floating-point work itself.
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
extern char **environ;
int main(int argc, char **argv) {
    char line[4096] = "";
    for (int i = 1; i < argc; i++) {
        strncat(line, argv[i], sizeof line - strlen(line) - 2);
        strcat(line, " ");
    }
    int st = system(line);
    pid_t pid;
    if (posix_spawnp(&pid, argv[1], NULL, NULL, argv + 1, environ) != 0) return 2;
    waitpid(pid, &st, 0);
    fflush(stdout);
    execlp(argv[1], argv[1], argv[2], argv[3], (char *)NULL);
    return 3;
}
