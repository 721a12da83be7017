#define _GNU_SOURCE
#include "crash_trace.h"

#include <execinfo.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

static char name[64];
/* The main thread's handler stack (a stack overflow leaves no room on the thread's own). */
static char alternate[64 * 1024];

static void put(const char *text) {
    size_t length = strlen(text);
    while (length > 0) {
        ssize_t written = write(STDERR_FILENO, text, length);
        if (written <= 0) return;
        text += written;
        length -= (size_t)written;
    }
}

/* Async-signal-safe number formatting: decimal, or hexadecimal with 0x. */
static void put_number(uintptr_t value, int hex) {
    char digits[2 + 2 * sizeof value + 1];
    char *end = digits + sizeof digits - 1, *p = end;
    *p = 0;
    do {
        unsigned digit = (unsigned)(value % (hex ? 16 : 10));
        *--p = (char)(digit < 10 ? '0' + digit : 'a' + digit - 10);
        value /= hex ? 16 : 10;
    } while (value != 0);
    if (hex) { *--p = 'x'; *--p = '0'; }
    put(p);
}

static void fatal(int signal_number, siginfo_t *info, void *context) {
    (void)context;
    put(name);
    put(": fatal signal ");
    put_number((uintptr_t)signal_number, 0);
    put(" (");
    put(sigabbrev_np(signal_number) ? sigabbrev_np(signal_number) : "?");
    put(") at address ");
    put_number((uintptr_t)info->si_addr, 1);
    put(", code ");
    put_number((uintptr_t)(unsigned)info->si_code, 0);
    put("; backtrace of the thread that took it (binary(+offset)):\n");
    void *frames[64];
    int count = backtrace(frames, 64);
    backtrace_symbols_fd(frames, count, STDERR_FILENO);
    /* SA_RESETHAND made the action the default again: raised again, the signal ends the process
       as it would have without this handler (the exit status, a core). */
    raise(signal_number);
}

int motiond_crash_trace_install(const char *program) {
    strncpy(name, program, sizeof name - 1);
    /* backtrace() loads libgcc's unwinder on its first call: done now, not in the handler. */
    void *warm[1];
    backtrace(warm, 1);
    stack_t stack = { .ss_sp = alternate, .ss_size = sizeof alternate, .ss_flags = 0 };
    sigaltstack(&stack, NULL);
    static const int signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP };
    int taken = 0;
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
        struct sigaction before;
        if (sigaction(signals[i], NULL, &before) != 0) continue;
        if ((before.sa_flags & SA_SIGINFO) ? before.sa_sigaction != NULL : before.sa_handler != SIG_DFL) continue;
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_sigaction = fatal;
        action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND | SA_NODEFER;
        sigemptyset(&action.sa_mask);
        if (sigaction(signals[i], &action, NULL) == 0) taken++;
    }
    return taken;
}
