/* json.c: the small JSON reader of json.h. Recursive descent, nesting limited to 64. */
#include "json.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *p;
    int depth;
} reader;

static json *parse_value(reader *r);

static void skip_space(reader *r) {
    while (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r') r->p++;
}

static json *new_value(json_type type) {
    json *v = calloc(1, sizeof *v);
    if (v) v->type = type;
    return v;
}

static int hex4(const char *p, unsigned *out) {
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
        else return 0;
    }
    *out = v;
    return 1;
}

static size_t put_utf8(char *out, unsigned code) {
    if (code < 0x80) { out[0] = (char)code; return 1; }
    if (code < 0x800) { out[0] = (char)(0xC0 | (code >> 6)); out[1] = (char)(0x80 | (code & 0x3F)); return 2; }
    if (code < 0x10000) {
        out[0] = (char)(0xE0 | (code >> 12)); out[1] = (char)(0x80 | ((code >> 6) & 0x3F));
        out[2] = (char)(0x80 | (code & 0x3F)); return 3;
    }
    out[0] = (char)(0xF0 | (code >> 18)); out[1] = (char)(0x80 | ((code >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((code >> 6) & 0x3F)); out[3] = (char)(0x80 | (code & 0x3F)); return 4;
}

/* A string's text, from after its opening quote; NULL when malformed. */
static char *parse_string(reader *r) {
    const char *start = r->p;
    size_t len = 0;
    while (*r->p && *r->p != '"') { /* an upper bound of the decoded length */
        if (*r->p == '\\' && r->p[1]) r->p++;
        r->p++;
        len++;
    }
    if (*r->p != '"') return NULL;
    char *out = malloc(len * 4 + 1), *o = out;
    if (!out) return NULL;
    for (const char *p = start; p < r->p; p++) {
        if (*p != '\\') { *o++ = *p; continue; }
        p++;
        switch (*p) {
            case 'b': *o++ = '\b'; break;
            case 'f': *o++ = '\f'; break;
            case 'n': *o++ = '\n'; break;
            case 'r': *o++ = '\r'; break;
            case 't': *o++ = '\t'; break;
            case 'u': {
                unsigned code, low;
                if (!hex4(p + 1, &code)) { free(out); return NULL; }
                p += 4;
                if (code >= 0xD800 && code < 0xDC00 && p[1] == '\\' && p[2] == 'u' && hex4(p + 3, &low)
                    && low >= 0xDC00 && low < 0xE000) {
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                    p += 6;
                }
                o += put_utf8(o, code);
                break;
            }
            default: *o++ = *p; /* \" \\ \/ */
        }
    }
    *o = '\0';
    r->p++; /* the closing quote */
    return out;
}

static int append(json *v, json *item, char *key) {
    json **items = realloc(v->items, (v->count + 1) * sizeof *items);
    if (!items) return 0;
    v->items = items;
    if (v->type == JSON_OBJECT) {
        char **keys = realloc(v->keys, (v->count + 1) * sizeof *keys);
        if (!keys) return 0;
        v->keys = keys;
        v->keys[v->count] = key;
    }
    v->items[v->count++] = item;
    return 1;
}

static json *parse_container(reader *r, json_type type) {
    char close = type == JSON_ARRAY ? ']' : '}';
    json *v = new_value(type);
    if (!v || ++r->depth > 64) { json_free(v); return NULL; }
    r->p++;
    skip_space(r);
    if (*r->p == close) { r->p++; r->depth--; return v; }
    for (;;) {
        char *key = NULL;
        skip_space(r);
        if (type == JSON_OBJECT) {
            if (*r->p != '"') break;
            r->p++;
            if (!(key = parse_string(r))) break;
            skip_space(r);
            if (*r->p != ':') { free(key); break; }
            r->p++;
        }
        json *item = parse_value(r);
        if (!item || !append(v, item, key)) { free(key); json_free(item); break; }
        skip_space(r);
        if (*r->p == ',') { r->p++; continue; }
        if (*r->p == close) { r->p++; r->depth--; return v; }
        break;
    }
    json_free(v);
    return NULL;
}

static json *parse_value(reader *r) {
    skip_space(r);
    const char *p = r->p;
    if (*p == '{') return parse_container(r, JSON_OBJECT);
    if (*p == '[') return parse_container(r, JSON_ARRAY);
    if (*p == '"') {
        r->p++;
        char *s = parse_string(r);
        json *v = s ? new_value(JSON_STRING) : NULL;
        if (v) v->string = s; else free(s);
        return v;
    }
    if (strncmp(p, "null", 4) == 0) { r->p += 4; return new_value(JSON_NULL); }
    if (strncmp(p, "true", 4) == 0 || strncmp(p, "false", 5) == 0) {
        json *v = new_value(JSON_BOOL);
        if (v) v->boolean = *p == 't';
        r->p += *p == 't' ? 4 : 5;
        return v;
    }
    char *end;
    double number = strtod(p, &end);
    if (end == p) return NULL;
    r->p = end;
    json *v = new_value(JSON_NUMBER);
    if (v) v->number = number;
    return v;
}

json *json_parse(const char *text) {
    reader r = {text, 0};
    json *v = parse_value(&r);
    skip_space(&r);
    if (v && *r.p != '\0') { json_free(v); return NULL; }
    return v;
}

void json_free(json *v) {
    if (!v) return;
    for (size_t i = 0; i < v->count; i++) {
        json_free(v->items[i]);
        if (v->keys) free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->string);
    free(v);
}

const json *json_get(const json *object, const char *key) {
    if (!object || object->type != JSON_OBJECT) return NULL;
    for (size_t i = 0; i < object->count; i++)
        if (strcmp(object->keys[i], key) == 0) return object->items[i];
    return NULL;
}

const json *json_at(const json *array, size_t i) {
    return array && array->type == JSON_ARRAY && i < array->count ? array->items[i] : NULL;
}

const char *json_str(const json *value) {
    return value && value->type == JSON_STRING ? value->string : NULL;
}

long long json_int(const json *value, long long otherwise) {
    return value && value->type == JSON_NUMBER ? (long long)value->number : otherwise;
}
