/* A bot that answers at once with its first legal choice: the referee benchmark's C opponent.
 *
 * It isolates the referee's own cost: it parses nothing but the three fields it needs
 * (the message type, the request id and the first legal string), from golfref's compact
 * JSON lines. bench/referee.py compiles it with the system's C compiler.
 *
 * With the argument --stamps it notes CLOCK_MONOTONIC when it has read its first request and
 * when it has written each answer, and at its end writes "stamps FIRST LAST" (nanoseconds) to
 * stderr, which the log keeps: bench/botstart.py times a run's start and end from outside so. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char line[1 << 20];

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv) {
    int stamps = argc > 1 && strcmp(argv[1], "--stamps") == 0;
    long long first = 0, last = 0;
    while (fgets(line, sizeof line, stdin)) {
        if (strncmp(line, "{\"type\":\"request\"", 17) == 0) {
            if (stamps && first == 0) first = now_ns();
            const char *id = strstr(line, "\"id\":");
            const char *legal = strstr(line, "\"legal\":[\"");
            if (id == NULL || legal == NULL) return 2;
            long n = strtol(id + 5, NULL, 10);
            const char *action = legal + 10;
            const char *end = strchr(action, '"');
            if (end == NULL) return 2;
            printf("{\"type\":\"answer\",\"id\":%ld,\"action\":\"%.*s\"}\n", n, (int)(end - action), action);
            fflush(stdout);
            if (stamps) last = now_ns();
        } else if (strncmp(line, "{\"type\":\"hello\"", 15) == 0) {
            fputs("{\"type\":\"ready\",\"name\":\"instant-c\"}\n", stdout);
            fflush(stdout);
        } else if (strncmp(line, "{\"type\":\"goodbye\"", 17) == 0) {
            break;
        }
    }
    if (stamps) fprintf(stderr, "stamps %lld %lld\n", first, last);
    return 0;
}
