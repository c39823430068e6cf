/* execl, execlp and execle as glibc documents them, gathering the arguments
 * on the stack (no malloc: they may run in a vfork child) and calling the
 * exported execv, execvp and execve, which this library defines. glibc's
 * own versions call its internal __execve, which a preload cannot see.
 * They have names of their own: a Rust cdylib exports only Rust's symbols,
 * so lib.rs exports execl, execlp and execle as jumps to these. */
#include <stdarg.h>
#include <stddef.h>

/* Declared here, not from <unistd.h>: its declarations say the first
 * argument is never NULL, which a caller may still pass. */
int execv(const char *path, char *const argv[]);
int execvp(const char *file, char *const argv[]);
int execve(const char *path, char *const argv[], char *const envp[]);

/* The arguments after `first`, up to the NULL, gathered with `first` into
 * the array `argv` on the stack; `ap` is left after the NULL. */
#define GATHERED(first, argv, ap)                                              \
    size_t n_ = 1;                                                             \
    va_list count_;                                                            \
    va_start(count_, first);                                                   \
    while (first != NULL && va_arg(count_, const char *) != NULL)              \
        n_++;                                                                  \
    va_end(count_);                                                            \
    char *argv[n_ + 1];                                                        \
    va_list ap;                                                                \
    va_start(ap, first);                                                       \
    argv[0] = (char *)first;                                                   \
    for (size_t i_ = 1; i_ < n_; i_++)                                         \
        argv[i_] = va_arg(ap, char *);                                         \
    if (first != NULL)                                                         \
        (void)va_arg(ap, char *); /* the NULL */                               \
    argv[n_] = NULL

int carmbench_follow_execl(const char *path, const char *arg, ...) {
    GATHERED(arg, argv, ap);
    va_end(ap);
    return execv(path, argv);
}

int carmbench_follow_execlp(const char *file, const char *arg, ...) {
    GATHERED(arg, argv, ap);
    va_end(ap);
    return execvp(file, argv);
}

int carmbench_follow_execle(const char *path, const char *arg, ...) {
    GATHERED(arg, argv, ap);
    char *const *envp = va_arg(ap, char *const *);
    va_end(ap);
    return execve(path, argv, envp);
}
