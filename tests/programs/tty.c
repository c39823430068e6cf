/* Whether the process has a terminal: appends "tty: yes" or "tty: no" (opening
 * /dev/tty fails) to the file named by its argument, as a program that asks
 * for a password would find out. No floating-point work. A second argument
 * "read": it also reads its standard input (a read of no bytes, which a
 * terminal answers at once). */
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
    char c;
    if (argc > 2 && read(0, &c, 0) < 0)
        return 3;
    fclose(f);
    if (fd >= 0)
        close(fd);
    return 0;
}
