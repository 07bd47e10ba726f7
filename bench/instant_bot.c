/* A bot that answers at once with its first legal choice: the referee benchmark's C opponent.
 *
 * It isolates the referee's own cost: it parses nothing but the three fields it needs
 * (the message type, the request id and the first legal string), from golfref's compact
 * JSON lines. bench/referee.py compiles it with the system's C compiler. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char line[1 << 20];

int main(void) {
    while (fgets(line, sizeof line, stdin)) {
        if (strncmp(line, "{\"type\":\"request\"", 17) == 0) {
            const char *id = strstr(line, "\"id\":");
            const char *legal = strstr(line, "\"legal\":[\"");
            if (id == NULL || legal == NULL) return 2;
            long n = strtol(id + 5, NULL, 10);
            const char *first = legal + 10;
            const char *end = strchr(first, '"');
            if (end == NULL) return 2;
            printf("{\"type\":\"answer\",\"id\":%ld,\"action\":\"%.*s\"}\n", n, (int)(end - first), first);
            fflush(stdout);
        } else if (strncmp(line, "{\"type\":\"hello\"", 15) == 0) {
            fputs("{\"type\":\"ready\",\"name\":\"instant-c\"}\n", stdout);
            fflush(stdout);
        } else if (strncmp(line, "{\"type\":\"goodbye\"", 17) == 0) {
            break;
        }
    }
    return 0;
}
