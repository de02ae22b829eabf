"""make_class.py - a generated class of 60 submissions with their expected verdicts.

make_class(folder, samples) fills `folder` with one entry per student (a
file, or a folder holding the kernel) and returns {id: (verdict, diagnosis,
reason)}: the expected verdict slug, the expected diagnosis id ("" for
none, None for "not checked"), and a phrase the row's message must hold
(or None). Two entries share the id "dup": both must come out Rejected.
"""
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))

# A kernel that never ends: the loop budget stops it, Time Limit Exceeded
# on every machine. (Before issue 29 it was a loop of 1,000 sines that ran
# into the deadline; such a kernel is now Rejected by its cost, and a
# deadline is the grader's limit, an Internal Error. The tests that need a
# job still running make a worker sleep: slow_env() in test_batch.py.)
RUNAWAY = (
    "float x = spectrum[0][this.thread.x];\n"
    "for (int k = 0; k < 1000000; k++) { x = x * 1.0001 + 0.5; }\n"
    "return x;\n")

COMPILE_ERRORS = {
    "e_semicolon": "int i = this.thread.x\nreturn spectrum[0][i];\n",
    "e_vec2": "return vec2(spectrum[0][this.thread.x], 0.0);\n",
    "e_two_errors": "float a = nope1;\nfloat b = nope2;\nreturn a + b;\n",
    "e_brace": "if (half == 1) {\nreturn 0.0;\n",
}

WRONG_SAMPLES = ["wrong_both_plus", "wrong_swapped_planes", "wrong_twiddle_sign",
                 "clamped_index", "hardcoded_visible", "starter"]
MISTAKES = ["angle_from_i", "angle_last_pass", "angle_over_size", "angle_two_pi",
            "componentwise", "int_division", "no_twiddle", "returns_zero",
            "none_upper_nan", "partner_next", "planes_swapped", "roles_swapped",
            "scaled_half", "base_off_by_two", "copies_input", "twiddle_conjugate"]


def header(text, key):
    """The value of a '// key: value' line at the top of a sample, or None."""
    for line in text.splitlines()[:6]:
        if line.startswith("// " + key + ":"):
            return line.split(":", 1)[1].strip()
    return None


def expectation(text):
    diag = header(text, "diagnosis")
    return (header(text, "expect"), "" if diag == "none" else diag, None)


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)


def make_class(folder, samples):
    os.makedirs(folder, exist_ok=True)
    expected = {}

    def add(student_id, name, text, expect):
        write(os.path.join(folder, name), text)
        expected[student_id] = expect

    def sample(path):
        with open(path) as f:
            return f.read()

    correct = sample(os.path.join(samples, "correct.glsl"))
    # correct, in different styles
    for i, name in enumerate(["correct", "correct_branches", "correct_vec2"]):
        text = sample(os.path.join(samples, name + ".glsl"))
        add("c%02d" % (i + 1), "c%02d.glsl" % (i + 1), text, ("accepted", "", None))
    for i, name in enumerate(sorted(os.listdir(os.path.join(HERE, "styles")))):
        text = sample(os.path.join(HERE, "styles", name))
        add("c%02d" % (i + 4), "c%02d.glsl" % (i + 4), text, ("accepted", "", None))
    add("c08", "c08.glsl", "\n\n// spaced out\n\n" + correct.replace("\n", "\n\n"),
        ("accepted", "", None))
    add("c09", "c09.glsl", correct.replace("\n", "\r\n"), ("accepted", "", None))
    add("c10", "c10.txt", correct.replace("    ", "\t"), ("accepted", "", None))
    add("c11", os.path.join("c11", "kernel.glsl"), correct, ("accepted", "", None))
    add('x,"q"', 'x,"q".glsl', correct, ("accepted", "", None))
    add("Jos\u00e9", "Jos\u00e9.glsl", correct, ("accepted", "", None))
    add("Upper", "Upper.glsl", correct, ("accepted", "", None))

    # wrong answers, with the mistake the grader should name
    for name in WRONG_SAMPLES:
        text = sample(os.path.join(samples, name + ".glsl"))
        add("w_" + name, "w_" + name + ".glsl", text, expectation(text))
    for name in MISTAKES:
        text = sample(os.path.join(samples, "mistakes", name + ".glsl"))
        add("m_" + name, "m_" + name + ".glsl", text, expectation(text))
    twiddle = sample(os.path.join(samples, "mistakes", "twiddle_sign.glsl"))
    add("w_folder", os.path.join("w_folder", "kernel.glsl"), twiddle, expectation(twiddle))
    write(os.path.join(folder, "w_folder", "README.md"), "my notes\n")

    # compile errors
    for name in ["compile_error_line3", "rejected_second_entry_point"]:
        text = sample(os.path.join(samples, name + ".glsl"))
        add("e_" + name, "e_" + name + ".glsl", text, ("compilation_error", None, None))
    for sid, text in COMPILE_ERRORS.items():
        add(sid, sid + ".glsl", text, ("compilation_error", None, None))

    # refused by the grader's checks
    for name in ["rejected_extra_buffer", "rejected_hidden_extension",
                 "rejected_shared_memory", "rejected_version"]:
        text = sample(os.path.join(samples, name + ".glsl"))
        add("r_" + name, "r_" + name + ".glsl", text, ("rejected", None, None))

    # hostile or broken inputs
    add("t_runaway", "t_runaway.glsl", RUNAWAY, ("time_limit_exceeded", None, None))
    add("t_deep", "t_deep.glsl",
        "float a = spectrum[0][0];\nfloat x = a" + "+a" * 11999 + ";\nreturn x;\n",
        ("rejected", None, "more than 1000 operators"))
    add("r_empty", "r_empty.glsl", "", ("rejected", None, "empty"))
    add("r_blank", "r_blank.glsl", "  \n\t\n", ("rejected", None, "empty"))
    rng = random.Random(6)
    add("r_binary", "r_binary.bin", bytes(rng.randrange(256) for _ in range(3000)) + b"\0",
        ("rejected", None, None))
    add("r_huge", "r_huge.glsl", "// " + "x" * (70 * 1024) + "\n" + correct,
        ("rejected", None, "over the limit"))
    add("dup", "dup.glsl", correct, ("rejected", None, "appears 2 times"))
    write(os.path.join(folder, "dup.txt"), correct)          # the second "dup"
    os.symlink("/etc/passwd", os.path.join(folder, "r_link.glsl"))
    expected["r_link"] = ("rejected", None, "symbolic link")
    write(os.path.join(folder, "r_two", "a.glsl"), correct)
    write(os.path.join(folder, "r_two", "b.glsl"), correct)
    expected["r_two"] = ("rejected", None, "several .glsl")
    os.makedirs(os.path.join(folder, "r_nofile"))
    expected["r_nofile"] = ("rejected", None, "no kernel file")
    add("bad%0Aid", "bad\nid.glsl", correct, ("rejected", None, "control character"))
    os.mkfifo(os.path.join(folder, "r_fifo.glsl"))
    expected["r_fifo"] = ("rejected", None, "not a regular file")
    # not a submission: hidden
    write(os.path.join(folder, ".DS_Store"), b"\0\0\0\1Bud1")
    return expected


EXPECTED_ROWS = 60


if __name__ == "__main__":
    import sys
    exp = make_class(sys.argv[1], sys.argv[2])
    print(len(exp) + 1, "rows expected")
