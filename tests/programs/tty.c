/* Whether the process has a terminal: appends "tty: yes" or "tty: no" (opening
 * /dev/tty fails) to the file named by its argument, as a program that asks
 * for a password would find out. No floating-point work. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 2)
        return 2;
    int fd = open("/dev/tty", O_RDWR);
    FILE *f = fopen(argv[1], "a");
    if (!f)
        return 1;
    fprintf(f, "tty: %s\n", fd >= 0 ? "yes" : "no");
    fclose(f);
    if (fd >= 0)
        close(fd);
    return 0;
}
