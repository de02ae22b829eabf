/* sample_bodies.c - the bodies of sample_bodies.h. */
#include "tests/support/sample_bodies.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>

const char *const index_bodies[] = {
    "return spectrum[this.thread.y][this.thread.x + 1000000];\n",
    "return spectrum[this.thread.y - 5][-this.thread.x * 77];\n",
    "uint u = uint(this.thread.x) * 3000000000u;\n"
    "return spectrum[u % 3u][u] + spectrum[1][u + 7u];\n",
    "float a[5];\nfor (int k = 0; k < 5; k++) a[k] = float(k);\n"
    "a[this.thread.x * 7 - 3] = 1.0;\nreturn a[this.thread.x - 9] + a[4];\n",
    "float a[3][4];\nfor (int p = 0; p < 3; p++) for (int q = 0; q < 4; q++) a[p][q] = 1.0;\n"
    "return a[this.thread.y * 9][this.thread.x];\n",
    "vec4 v = vec4(1.0, 2.0, 3.0, 4.0);\nint k = this.thread.x;\nv[k + 2] = 5.0;\n"
    "return v[k - 1] + v[3] + v.y;\n",
    "mat3 m = mat3(1.0);\nm[this.thread.x][this.thread.y + 4] = 2.0;\n"
    "return m[this.thread.x - 2][1] + m[2][this.thread.x];\n",
    "struct S { float a[3]; vec2 b; };\nS s;\ns.a[this.thread.x] = 1.0;\n"
    "s.b[this.thread.x] = 2.0;\nreturn s.a[half] + s.b[1 - this.thread.x];\n",
    "float one[1];\none[0] = spectrum[0][0];\nreturn one[this.thread.x];\n",
    "return spectrum[0][this.thread.x + 3];\n}\n"
    "float never_called(int k) {\nreturn spectrum[1][k];\n",
};
const size_t index_bodies_count = sizeof index_bodies / sizeof index_bodies[0];

size_t sample_bodies_each(const char *dir,
                          bool (*fn)(void *arg, const char *name, const char *body),
                          void *arg)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    size_t count = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".glsl") != 0)
            continue;
        char path[1024], body[16384];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        if (!f)
            continue;
        size_t n = fread(body, 1, sizeof body - 1, f);
        fclose(f);
        body[n] = '\0';
        count += fn(arg, e->d_name, body);
    }
    closedir(d);
    return count;
}
