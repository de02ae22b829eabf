#include "engine/checks/spirv_robust.h"

extern "C" {
#include "engine/checks/spirv_clamp.h"
}

#include <spirv-tools/libspirv.hpp>
#include <spirv-tools/optimizer.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

// Remembers the first error-or-worse message a SPIRV-Tools call reports.
struct first_error {
    std::string text;

    spvtools::MessageConsumer consumer()
    {
        return [this](spv_message_level_t level, const char *, const spv_position_t &,
                      const char *message) {
            if (level > SPV_MSG_ERROR || !text.empty())
                return;
            text = message != nullptr ? message : "unknown error";
        };
    }
};

void set_msg(char *msg, size_t msgsz, const char *what, const std::string &detail)
{
    if (msg == nullptr || msgsz == 0)
        return;
    if (detail.empty())
        std::snprintf(msg, msgsz, "%s", what);
    else
        std::snprintf(msg, msgsz, "%s: %s", what, detail.c_str());
}

// The validator refuses a module newer than its environment's SPIR-V, so
// pick the oldest Vulkan that accepts the module's version.
bool target_env_for(const uint32_t *words, size_t nwords, spv_target_env *env)
{
    if (nwords < 5)
        return false;
    uint32_t minor = (words[1] >> 8) & 0xff;
    if ((words[1] >> 16) != 1)
        return false;
    switch (minor) {
    case 0: *env = SPV_ENV_VULKAN_1_0; return true;
    case 1:
    case 2:
    case 3: *env = SPV_ENV_VULKAN_1_1; return true;
    case 4: *env = SPV_ENV_VULKAN_1_1_SPIRV_1_4; return true;
    case 5: *env = SPV_ENV_VULKAN_1_2; return true;
    case 6: *env = SPV_ENV_VULKAN_1_3; return true;
    default: return false;
    }
}

// The validator's options for a module that is almost always valid: no
// friendly names. Building the map of names parses the whole module once
// more (a tenth of a new submission's own stages); it only serves an error
// message, so a refusal validates again with names for its words.
spvtools::ValidatorOptions fast_options()
{
    spvtools::ValidatorOptions o;
    o.SetFriendlyNames(false);
    return o;
}

// The validator on a module, for the Vulkan environment of its version;
// `invalid` names what the module failed to be in msg.
bool validate(const uint32_t *words, size_t nwords, const char *invalid, char *msg,
              size_t msgsz)
{
    spv_target_env env;
    if (words == nullptr || !target_env_for(words, nwords, &env)) {
        set_msg(msg, msgsz, "the module is not SPIR-V 1.0 to 1.6", "");
        return false;
    }
    spvtools::SpirvTools tools(env);
    tools.SetMessageConsumer([](spv_message_level_t, const char *, const spv_position_t &,
                                const char *) {});
    if (tools.Validate(words, nwords, fast_options()))
        return true;
    first_error err;   // refused: again, with names, for the message
    tools.SetMessageConsumer(err.consumer());
    tools.Validate(words, nwords);
    set_msg(msg, msgsz, invalid, err.text);
    return false;
}

// Copies SPIRV-Tools' output into memory the C caller frees.
bool hand_out(const std::vector<uint32_t> &result, uint32_t **out, size_t *out_nwords,
              char *msg, size_t msgsz)
{
    size_t nbytes = result.size() * sizeof(uint32_t);
    auto *copy = static_cast<uint32_t *>(std::malloc(nbytes > 0 ? nbytes : 1));
    if (copy == nullptr) {
        set_msg(msg, msgsz, "out of memory after the robust-access pass", "");
        return false;
    }
    if (nbytes > 0)
        std::memcpy(copy, result.data(), nbytes);
    *out = copy;
    *out_nwords = result.size();
    return true;
}

// SPIRV-Tools' graphics robust-access pass on a module already validated:
// it builds the whole IR, clamps, and writes the module out again.
bool tools_pass(const uint32_t *words, size_t nwords, spv_target_env env, uint32_t **out,
                size_t *out_nwords, char *msg, size_t msgsz)
{
    first_error err;
    spvtools::Optimizer opt(env);
    opt.SetMessageConsumer(err.consumer());
    opt.RegisterPass(spvtools::CreateGraphicsRobustAccessPass());
    spvtools::OptimizerOptions options;
    options.set_run_validator(false);
    std::vector<uint32_t> result;
    if (!opt.Run(words, nwords, &result, options)) {
        set_msg(msg, msgsz, "the robust-access pass failed", err.text);
        return false;
    }
    // The output is validated by the caller, as ours is.
    return hand_out(result, out, out_nwords, msg, msgsz);
}

// Clamps: with our own pass (spirv_clamp.c) where it handles the module's
// shapes, else with SPIRV-Tools'. Ours reads any words safely and its
// output is validated by the caller, with the rest of what the driver is
// handed (grade.c), so the module is not validated here first: that was a
// second validation per submission. SPIRV-Tools' pass assumes a valid
// module, so a module it clamps is validated before. `ours` false: only
// SPIRV-Tools' (the tests compare the two).
bool apply(const uint32_t *words, size_t nwords, bool ours, uint32_t **out,
           size_t *out_nwords, char *msg, size_t msgsz)
{
    spv_target_env env;
    if (words == nullptr || !target_env_for(words, nwords, &env)) {
        set_msg(msg, msgsz, "the compiled module is not SPIR-V 1.0 to 1.6", "");
        return false;
    }
    if (ours) {
        switch (spirv_clamp_indices(words, nwords, out, out_nwords)) {
        case SPIRV_CLAMP_DONE:
            return true;
        case SPIRV_CLAMP_NO_MEMORY:
            set_msg(msg, msgsz, "out of memory in the robust-access pass", "");
            return false;
        case SPIRV_CLAMP_NOT_HANDLED:
            break;   // a shape ours leaves to SPIRV-Tools
        }
    }
    // (The words of the refusal are those the optimizer's own validation
    // gave before our pass existed.)
    if (!validate(words, nwords, "the robust-access pass failed", msg, msgsz))
        return false;
    return tools_pass(words, nwords, env, out, out_nwords, msg, msgsz);
}

// The C entry points' shared guard: no C++ exception may unwind into C.
bool apply_guarded(const uint32_t *words, size_t nwords, bool ours, uint32_t **out,
                   size_t *out_nwords, char *msg, size_t msgsz)
{
    if (msg != nullptr && msgsz > 0)
        msg[0] = '\0';
    if (out == nullptr || out_nwords == nullptr) {
        set_msg(msg, msgsz, "spirv_robust_apply: no place for the result", "");
        return false;
    }
    // SPIRV-Tools allocates freely; bad_alloc (or anything else) must not
    // unwind into C frames.
    try {
        return apply(words, nwords, ours, out, out_nwords, msg, msgsz);
    } catch (const std::exception &e) {
        set_msg(msg, msgsz, "the robust-access pass failed", e.what());
    } catch (...) {
        set_msg(msg, msgsz, "the robust-access pass failed", "unknown exception");
    }
    return false;
}

} // namespace

extern "C" bool spirv_robust_validate(const uint32_t *words, size_t nwords, char *msg,
                                      size_t msgsz)
{
    if (msg != nullptr && msgsz > 0)
        msg[0] = '\0';
    try {
        return validate(words, nwords, "the module is not valid", msg, msgsz);
    } catch (const std::exception &e) {
        set_msg(msg, msgsz, "the validator failed", e.what());
    } catch (...) {
        set_msg(msg, msgsz, "the validator failed", "unknown exception");
    }
    return false;
}

extern "C" bool spirv_robust_apply(const uint32_t *words, size_t nwords, uint32_t **out,
                                   size_t *out_nwords, char *msg, size_t msgsz)
{
    return apply_guarded(words, nwords, true, out, out_nwords, msg, msgsz);
}

extern "C" bool spirv_robust_apply_tools(const uint32_t *words, size_t nwords, uint32_t **out,
                                         size_t *out_nwords, char *msg, size_t msgsz)
{
    return apply_guarded(words, nwords, false, out, out_nwords, msg, msgsz);
}
