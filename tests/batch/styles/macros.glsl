// expect: accepted
// the block start from integer division, names from macros
#define RE(k) spectrum[0][k]
#define IM(k) spectrum[1][k]
int i = this.thread.x;
int block = (i / (2 * half)) * (2 * half);
int r = i - block;
bool upper = r >= half;
if (upper) r -= half;
int a = block + r, b = a + half;
float th = -PI * float(r) / float(half);
float tr = cos(th) * RE(b) - sin(th) * IM(b);
float ti = cos(th) * IM(b) + sin(th) * RE(b);
float outr = upper ? RE(a) - tr : RE(a) + tr;
float outi = upper ? IM(a) - ti : IM(a) + ti;
return this.thread.y == 0 ? outr : outi;
