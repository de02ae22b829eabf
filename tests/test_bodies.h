/* test_bodies.h - kernel bodies shared by the C tests. */
#ifndef BUTTERFLY_TEST_BODIES_H
#define BUTTERFLY_TEST_BODIES_H

/* The body the page's hints spell out: Accepted. */
static const char test_correct_body[] =
    "int i = this.thread.x;\n"
    "int j = (i / half) % 2;\n"
    "int base = i - j * half;\n"
    "int r = i % half;\n"
    "float ar = spectrum[0][base], ai = spectrum[1][base];\n"
    "float br = spectrum[0][base + half], bi = spectrum[1][base + half];\n"
    "float wr = cos(-PI * float(r) / float(half));\n"
    "float wi = sin(-PI * float(r) / float(half));\n"
    "float tr = wr * br - wi * bi;\n"
    "float ti = wr * bi + wi * br;\n"
    "if (this.thread.y == 0) return j == 0 ? ar + tr : ar - tr;\n"
    "return j == 0 ? ai + ti : ai - ti;\n";

#endif
