/* execl, execlp and execle as glibc documents them, gathering the arguments
 * on the stack (no malloc: they may run in a vfork child) and calling the
 * exported execv, execvp and execve, which this library defines. glibc's
 * own versions call its internal __execve, which a preload cannot see. */
#include <stdarg.h>
#include <stddef.h>

/* Declared here, not from <unistd.h>: its declarations say the first
 * argument is never NULL, which a caller may still pass. */
int execv(const char *path, char *const argv[]);
int execvp(const char *file, char *const argv[]);
int execve(const char *path, char *const argv[], char *const envp[]);

#define COUNT(n, first, last)                                                  \
    do {                                                                       \
        va_list c;                                                             \
        va_start(c, last);                                                     \
        for (n = 1; first != NULL && va_arg(c, const char *) != NULL; n++) {  \
        }                                                                      \
        va_end(c);                                                             \
    } while (0)

#define GATHER(argv, n, first, ap)                                             \
    do {                                                                       \
        argv[0] = (char *)first;                                               \
        for (size_t i = 1; i < n; i++)                                         \
            argv[i] = va_arg(ap, char *);                                      \
        argv[n] = NULL;                                                        \
    } while (0)

int execl(const char *path, const char *arg, ...) {
    size_t n;
    COUNT(n, arg, arg);
    char *argv[n + 1];
    va_list ap;
    va_start(ap, arg);
    GATHER(argv, n, arg, ap);
    va_end(ap);
    return execv(path, argv);
}

int execlp(const char *file, const char *arg, ...) {
    size_t n;
    COUNT(n, arg, arg);
    char *argv[n + 1];
    va_list ap;
    va_start(ap, arg);
    GATHER(argv, n, arg, ap);
    va_end(ap);
    return execvp(file, argv);
}

int execle(const char *path, const char *arg, ...) {
    size_t n;
    COUNT(n, arg, arg);
    char *argv[n + 1];
    va_list ap;
    va_start(ap, arg);
    GATHER(argv, n, arg, ap);
    char *const *envp = va_arg(ap, char *const *);
    va_end(ap);
    return execve(path, argv, envp);
}
