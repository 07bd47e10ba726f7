/* json.h: a small JSON reader for golfref bots (C11, no dependencies).
 *
 * json_parse builds a tree from one JSON text; json_get and json_at walk it. Numbers are
 * doubles (every number golfref sends is an integer well below 2^53). Strings are UTF-8,
 * with escapes decoded. Part of the golfref C starter kit (MIT licence, as golfref). */
#ifndef GOLF_JSON_H
#define GOLF_JSON_H

#include <stddef.h>

typedef enum { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } json_type;

typedef struct json {
    json_type type;
    int boolean;          /* JSON_BOOL */
    double number;        /* JSON_NUMBER */
    char *string;         /* JSON_STRING */
    size_t count;         /* JSON_ARRAY and JSON_OBJECT: how many items */
    struct json **items;  /* the items (an object's values) */
    char **keys;          /* JSON_OBJECT: the keys, in order */
} json;

/* The tree of `text`, or NULL when it is not one JSON value. Free it with json_free. */
json *json_parse(const char *text);
void json_free(json *value);
/* The member `key` of an object, or NULL (also when `object` is NULL or not an object). */
const json *json_get(const json *object, const char *key);
/* Item `i` of an array, or NULL. */
const json *json_at(const json *array, size_t i);
/* The string of a string value, or NULL (null, another type, or NULL). */
const char *json_str(const json *value);
/* The integer of a number value, or `otherwise`. */
long long json_int(const json *value, long long otherwise);

#endif
