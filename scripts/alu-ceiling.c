// How many integer ALU instructions one x86-64 core issues a cycle, whatever
// the kernel: independent 1-cycle operations on twelve general registers, in
// several shapes, each rate over the clock that a chain of dependent adds
// (one a cycle) gives. Where every shape stops at the same rate below the
// ALU count, the core, not carmbench's kernel, sets the integer roof (see
// docs/evidence.md, "The integer ALU roof").
//
//   gcc -O1 scripts/alu-ceiling.c -o /tmp/alu-ceiling && /tmp/alu-ceiling
#include <stdio.h>
#include <time.h>

#define ITERATIONS 20000000L
#define RUNS 7

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

// Twelve chains: the ABI's scratch registers and the callee-saved ones (rbx
// and rbp pushed around the loop), rcx the loop counter.
#define CLOBBERS "rcx", "rax", "rdi", "rsi", "rdx", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"
#define EACH(body) ".irp r,rax,rdi,rsi,rdx,r10,r11,rbx,rbp,r12,r13,r14,r15\n" body "\n.endr\n"
#define LOOP(reps, body)                                                                        \
    __asm__ volatile("push %%rbx\n push %%rbp\n mov %0, %%rcx\n .p2align 6\n 1:\n .rept " #reps \
                     "\n" EACH(body) ".endr\n dec %%rcx\n jnz 1b\n pop %%rbp\n pop %%rbx\n"     \
                     :                                                                          \
                     : "r"(ITERATIONS)                                                          \
                     : CLOBBERS)

#define BEST(var, code)                        \
    do {                                       \
        double t0 = now();                     \
        code;                                  \
        double t = now() - t0;                 \
        if (t < var) var = t;                  \
    } while (0)

int main(void) {
    double chain = 1e9, add = 1e9, add_imm = 1e9, add_long = 1e9, not_ = 1e9, xor_ = 1e9,
           lea = 1e9, with_mov = 1e9, mov = 1e9;
    for (int k = 0; k < RUNS; k++) {
        BEST(chain, __asm__ volatile("mov %0, %%rcx\n 1:\n .rept 48\n add $1, %%rax\n .endr\n"
                                     " dec %%rcx\n jnz 1b\n"
                                     :
                                     : "r"(ITERATIONS)
                                     : "rcx", "rax"));
        BEST(add, LOOP(4, "add %%\\r, %%\\r"));
        BEST(add_imm, LOOP(4, "add $1, %%\\r"));
        BEST(add_long, LOOP(16, "add $1, %%\\r"));
        BEST(not_, LOOP(4, "not %%\\r"));
        BEST(xor_, LOOP(4, "xor $3, %%\\r"));
        BEST(lea, LOOP(4, "lea 1(%%\\r), %%\\r"));
        BEST(with_mov, LOOP(4, "add $1, %%\\r\n mov %%r8, %%r9"));
        BEST(mov, LOOP(4, "mov %%r8, %%\\r"));
    }
    // A dependent add a cycle: the core clock.
    double hz = 48.0 * ITERATIONS / chain;
    printf("core clock %.3f GHz (a chain of dependent adds)\n", hz / 1e9);
    struct {
        const char *what;
        double seconds, per_iteration;
    } rows[] = {
        {"add reg, reg: 48 an iteration", add, 48},
        {"add imm: 48 an iteration", add_imm, 48},
        {"add imm: 192 an iteration", add_long, 192},
        {"not: 48", not_, 48},
        {"xor imm: 48", xor_, 48},
        {"lea: 48", lea, 48},
        {"add imm + mov (eliminated): 48 + 48", with_mov, 96},
        {"mov (eliminated): 48", mov, 48},
    };
    for (unsigned k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        double per_cycle = rows[k].per_iteration * ITERATIONS / rows[k].seconds / hz;
        printf("%-38s %.2f instructions a cycle\n", rows[k].what, per_cycle);
    }
    return 0;
}
