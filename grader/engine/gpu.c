/* gpu.c - the Vulkan side: device choice, buffers, one dispatch per kernel. */
#include "engine/gpu.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <vulkan/vulkan.h>

#include "common/clock.h"
#include "common/verdict.h"

struct gpu_context {
    VkInstance instance;
    VkPhysicalDevice phys;
    VkDevice device;
    VkQueue queue;
    uint32_t queue_family;
    struct gpu_device_info info;
    double timestamp_period_ns;   /* 0 when the queue has no timestamps */

    VkDescriptorSetLayout set_layout;
    VkPipelineLayout pipeline_layout;
    VkDescriptorPool descriptor_pool;
    VkDescriptorSet descriptor_set;
    VkDeviceSize align;                   /* of a dynamic offset */
    /* The sizes the descriptors bind now (one run's slices, of the last
     * kernel run's exercise), and the slices' strides. */
    uint32_t bound_in_bytes, bound_out_cells;
    VkDeviceSize in_stride, out_stride;
    VkBuffer in_buf, out_buf;
    VkDeviceMemory in_mem, out_mem;
    void *in_map, *out_map;
    VkCommandPool command_pool;
    VkCommandBuffer cmd;
    VkFence fence;
    VkQueryPool query_pool;
    bool poisoned;                /* a dispatch may still be running */
};

struct gpu_kernel {
    VkShaderModule module;
    VkPipeline pipeline;
    uint32_t in_bytes, out_cells;   /* its exercise's run: bf_in_block, cells of bf_out_block */
};

/* One run's input (bf_in_block) and outputs (bf_out_block), as the harness
 * lays them out in std430: the parameter and the input's floats; the
 * values, then the loop-budget marks. */
#define RUN_IN_BYTES(floats)  (sizeof(int32_t) + (size_t)(floats) * sizeof(float))
#define RUN_OUT_BYTES(cells)  ((size_t)(cells) * (sizeof(float) + sizeof(uint32_t)))

_Static_assert(sizeof(struct gpu_run) == RUN_IN_BYTES(EX_MAX_CELLS),
               "gpu_run must be bf_in_block of the largest exercise in std430");

#if defined(__SANITIZE_ADDRESS__)
#include <dlfcn.h>
#include <link.h>

/* Marks a loaded Vulkan driver as never to be unloaded. */
static int pin_one(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    (void)arg;
    if (info->dlpi_name && strstr(info->dlpi_name, "libvulkan_"))
        dlopen(info->dlpi_name, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
    return 0;
}

/*
 * Sanitizer builds only: the loader unloads the driver when the instance
 * goes, and LeakSanitizer can then no longer tell the driver's own
 * lifetime allocations (scripts/lsan-mesa.supp) from the grader's. Kept
 * loaded, they carry the driver's name and are suppressed by it.
 */
static void pin_driver_for_leak_reports(void)
{
    dl_iterate_phdr(pin_one, NULL);
}
#else
static void pin_driver_for_leak_reports(void)
{
}
#endif

const char *gpu_status_to_str(enum gpu_status s)
{
    switch (s) {
    case GPU_OK: return "ok";
    case GPU_TIMEOUT: return "timeout";
    case GPU_DEVICE_LOST: return "device lost";
    case GPU_ERROR: return "error";
    }
    return "unknown";
}

static void set_err(char *err, size_t errsz, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errsz, fmt, ap);
    va_end(ap);
}

static enum device_type device_type_of(VkPhysicalDeviceType t)
{
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return DEVICE_DISCRETE;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return DEVICE_INTEGRATED;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return DEVICE_VIRTUAL;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return DEVICE_CPU;
    default: return DEVICE_OTHER;
    }
}

/* Higher is preferred: a real GPU first, the CPU fallback last. */
static int device_type_rank(VkPhysicalDeviceType t)
{
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 4;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 3;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 1;
    default: return 0;
    }
}

static VkResult create_instance(VkInstance *out)
{
    VkApplicationInfo app = {
        .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
        .pApplicationName = "butterfly-grader",
        .apiVersion = VK_API_VERSION_1_0,
    };
    VkInstanceCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
        .pApplicationInfo = &app,
    };
    return vkCreateInstance(&ci, NULL, out);
}

/* Fills *list (malloc'd) with the physical devices; returns their count or -1. */
static int enumerate(VkInstance inst, VkPhysicalDevice **list)
{
    uint32_t n = 0;
    if (vkEnumeratePhysicalDevices(inst, &n, NULL) != VK_SUCCESS)
        return -1;
    *list = calloc(n ? n : 1, sizeof **list);
    if (!*list)
        return -1;
    if (vkEnumeratePhysicalDevices(inst, &n, *list) < 0) {
        free(*list);
        *list = NULL;
        return -1;
    }
    return (int)n;
}

static void fill_info(VkPhysicalDevice pd, uint32_t index, struct gpu_device_info *info)
{
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(pd, &p);
    memset(info, 0, sizeof *info);
    snprintf(info->name, sizeof info->name, "%s", p.deviceName);
    info->type = device_type_of(p.deviceType);
    snprintf(info->driver, sizeof info->driver, "vendor 0x%04x, driver version 0x%08x, Vulkan %u.%u.%u",
             p.vendorID, p.driverVersion, VK_VERSION_MAJOR(p.apiVersion),
             VK_VERSION_MINOR(p.apiVersion), VK_VERSION_PATCH(p.apiVersion));
    info->index = index;
}

int gpu_list_devices(FILE *out, char *err, size_t errsz)
{
    VkInstance inst;
    VkResult vr = create_instance(&inst);
    if (vr != VK_SUCCESS) {
        set_err(err, errsz, "cannot create a Vulkan instance (VkResult %d): is a Vulkan driver installed?", vr);
        return -1;
    }
    VkPhysicalDevice *list = NULL;
    int n = enumerate(inst, &list);
    for (int i = 0; i < n; i++) {
        struct gpu_device_info info;
        fill_info(list[i], (uint32_t)i, &info);
        fprintf(out, "%d: %s (%s; %s)\n", i, info.name, device_type_to_str(info.type), info.driver);
    }
    if (n < 0)
        set_err(err, errsz, "cannot enumerate Vulkan devices");
    free(list);
    vkDestroyInstance(inst, NULL);
    return n;
}

static bool find_compute_queue(VkPhysicalDevice pd, uint32_t *family, uint32_t *ts_bits)
{
    uint32_t n = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, NULL);
    VkQueueFamilyProperties *q = calloc(n ? n : 1, sizeof *q);
    if (!q)
        return false;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, q);
    bool found = false;
    for (uint32_t i = 0; i < n && !found; i++) {
        if (q[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
            *family = i;
            *ts_bits = q[i].timestampValidBits;
            found = true;
        }
    }
    free(q);
    return found;
}

/* Picks the device named by selector, or the best one. -1 when none fits. */
static int select_device(VkPhysicalDevice *list, int n, const char *selector,
                         char *err, size_t errsz)
{
    if (selector && *selector) {
        char *end;
        long idx = strtol(selector, &end, 10);
        if (*end == '\0') {
            if (idx < 0 || idx >= n) {
                set_err(err, errsz, "no Vulkan device with index %ld (there are %d)", idx, n);
                return -1;
            }
            return (int)idx;
        }
        for (int i = 0; i < n; i++) {
            VkPhysicalDeviceProperties p;
            vkGetPhysicalDeviceProperties(list[i], &p);
            if (strcasestr(p.deviceName, selector))
                return i;
        }
        set_err(err, errsz, "no Vulkan device whose name contains \"%s\"", selector);
        return -1;
    }
    int best = -1, best_rank = -1;
    for (int i = 0; i < n; i++) {
        VkPhysicalDeviceProperties p;
        uint32_t fam, bits;
        vkGetPhysicalDeviceProperties(list[i], &p);
        if (!find_compute_queue(list[i], &fam, &bits))
            continue;
        int rank = device_type_rank(p.deviceType);
        if (rank > best_rank) {
            best = i;
            best_rank = rank;
        }
    }
    if (best < 0)
        set_err(err, errsz, "no Vulkan device with a compute queue");
    return best;
}

static bool find_memory_type(VkPhysicalDevice pd, uint32_t type_bits,
                             VkMemoryPropertyFlags want, uint32_t *index)
{
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(pd, &mp);
    for (uint32_t i = 0; i < mp.memoryTypeCount; i++) {
        if ((type_bits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & want) == want) {
            *index = i;
            return true;
        }
    }
    return false;
}

static VkResult create_host_buffer(struct gpu_context *g, VkDeviceSize size,
                                   VkBuffer *buf, VkDeviceMemory *mem, void **map)
{
    VkBufferCreateInfo bci = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
        .size = size,
        .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
    };
    VkResult vr = vkCreateBuffer(g->device, &bci, NULL, buf);
    if (vr != VK_SUCCESS)
        return vr;
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(g->device, *buf, &req);
    uint32_t type;
    /* Host-visible and coherent: the buffers are tiny, and coherent memory
     * needs no flush or invalidate; the spec guarantees such a type. */
    if (!find_memory_type(g->phys, req.memoryTypeBits,
                          VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                          VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, &type))
        return VK_ERROR_FEATURE_NOT_PRESENT;
    VkMemoryAllocateInfo mai = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
        .allocationSize = req.size,
        .memoryTypeIndex = type,
    };
    vr = vkAllocateMemory(g->device, &mai, NULL, mem);
    if (vr != VK_SUCCESS)
        return vr;
    vr = vkBindBufferMemory(g->device, *buf, *mem, 0);
    if (vr != VK_SUCCESS)
        return vr;
    return vkMapMemory(g->device, *mem, 0, VK_WHOLE_SIZE, 0, map);
}

static VkResult create_device(struct gpu_context *g)
{
    VkPhysicalDeviceFeatures have, want = {0};
    vkGetPhysicalDeviceFeatures(g->phys, &have);
    /* Out-of-range buffer accesses stay inside the buffer (or read zero)
     * instead of reaching other memory of the process. */
    want.robustBufferAccess = have.robustBufferAccess;
    float prio = 1.0f;
    VkDeviceQueueCreateInfo qci = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
        .queueFamilyIndex = g->queue_family,
        .queueCount = 1,
        .pQueuePriorities = &prio,
    };
    VkDeviceCreateInfo dci = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
        .queueCreateInfoCount = 1,
        .pQueueCreateInfos = &qci,
        .pEnabledFeatures = &want,
    };
    VkResult vr = vkCreateDevice(g->phys, &dci, NULL, &g->device);
    if (vr == VK_SUCCESS)
        vkGetDeviceQueue(g->device, g->queue_family, 0, &g->queue);
    return vr;
}

static VkResult create_layouts(struct gpu_context *g)
{
    /* Dynamic: each run's dispatch binds its own slice of the buffers, so
     * a run cannot read another run's input (the hidden spectra). */
    VkDescriptorSetLayoutBinding b[2] = {
        { .binding = 0, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC,
          .descriptorCount = 1, .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT },
        { .binding = 1, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC,
          .descriptorCount = 1, .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT },
    };
    VkDescriptorSetLayoutCreateInfo dl = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .bindingCount = 2,
        .pBindings = b,
    };
    VkResult vr = vkCreateDescriptorSetLayout(g->device, &dl, NULL, &g->set_layout);
    if (vr != VK_SUCCESS)
        return vr;
    VkPipelineLayoutCreateInfo pl = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .setLayoutCount = 1,
        .pSetLayouts = &g->set_layout,
    };
    vr = vkCreatePipelineLayout(g->device, &pl, NULL, &g->pipeline_layout);
    if (vr != VK_SUCCESS)
        return vr;
    VkDescriptorPoolSize ps = { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC, 2 };
    VkDescriptorPoolCreateInfo dp = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
        .maxSets = 1,
        .poolSizeCount = 1,
        .pPoolSizes = &ps,
    };
    vr = vkCreateDescriptorPool(g->device, &dp, NULL, &g->descriptor_pool);
    if (vr != VK_SUCCESS)
        return vr;
    VkDescriptorSetAllocateInfo da = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
        .descriptorPool = g->descriptor_pool,
        .descriptorSetCount = 1,
        .pSetLayouts = &g->set_layout,
    };
    return vkAllocateDescriptorSets(g->device, &da, &g->descriptor_set);
}

/* n rounded up to a multiple of align (a power of two, as Vulkan's limits are). */
static VkDeviceSize align_up(VkDeviceSize n, VkDeviceSize align)
{
    return align > 1 ? (n + align - 1) & ~(align - 1) : n;
}

/*
 * Binds one run's slices of in_bytes and out_cells, and sets the strides
 * of the runs' slices. The ranges are one run's slice exactly:
 * robustBufferAccess keeps every access inside the range bound for the
 * dispatch. Only between submissions (the fence waited for).
 */
static void bind_ranges(struct gpu_context *g, uint32_t in_bytes, uint32_t out_cells)
{
    g->in_stride = align_up(in_bytes, g->align);
    g->out_stride = align_up(RUN_OUT_BYTES(out_cells), g->align);
    VkDescriptorBufferInfo bi[2] = {
        { g->in_buf, 0, in_bytes },
        { g->out_buf, 0, RUN_OUT_BYTES(out_cells) },
    };
    VkWriteDescriptorSet w[2];
    for (int i = 0; i < 2; i++) {
        w[i] = (VkWriteDescriptorSet){
            .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
            .dstSet = g->descriptor_set,
            .dstBinding = (uint32_t)i,
            .descriptorCount = 1,
            .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC,
            .pBufferInfo = &bi[i],
        };
    }
    vkUpdateDescriptorSets(g->device, 2, w, 0, NULL);
    g->bound_in_bytes = in_bytes;
    g->bound_out_cells = out_cells;
}

static VkResult create_buffers_and_commands(struct gpu_context *g, uint32_t ts_bits)
{
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(g->phys, &p);
    g->align = p.limits.minStorageBufferOffsetAlignment;
    /* room for the largest exercise's runs; each grading binds its own */
    VkResult vr = create_host_buffer(g, align_up(RUN_IN_BYTES(EX_MAX_CELLS), g->align) *
                                        EX_MAX_RUNS, &g->in_buf, &g->in_mem, &g->in_map);
    if (vr != VK_SUCCESS)
        return vr;
    vr = create_host_buffer(g, align_up(RUN_OUT_BYTES(EX_MAX_CELLS), g->align) * EX_MAX_RUNS,
                            &g->out_buf, &g->out_mem, &g->out_map);
    if (vr != VK_SUCCESS)
        return vr;
    bind_ranges(g, (uint32_t)RUN_IN_BYTES(EX_MAX_CELLS), EX_MAX_CELLS);

    VkCommandPoolCreateInfo cp = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
        .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
        .queueFamilyIndex = g->queue_family,
    };
    vr = vkCreateCommandPool(g->device, &cp, NULL, &g->command_pool);
    if (vr != VK_SUCCESS)
        return vr;
    VkCommandBufferAllocateInfo ca = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
        .commandPool = g->command_pool,
        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
        .commandBufferCount = 1,
    };
    vr = vkAllocateCommandBuffers(g->device, &ca, &g->cmd);
    if (vr != VK_SUCCESS)
        return vr;
    VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
    vr = vkCreateFence(g->device, &fci, NULL, &g->fence);
    if (vr != VK_SUCCESS)
        return vr;

    if (ts_bits > 0 && p.limits.timestampComputeAndGraphics) {
        VkQueryPoolCreateInfo qp = {
            .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
            .queryType = VK_QUERY_TYPE_TIMESTAMP,
            .queryCount = 2,
        };
        if (vkCreateQueryPool(g->device, &qp, NULL, &g->query_pool) == VK_SUCCESS)
            g->timestamp_period_ns = p.limits.timestampPeriod;
    }
    return VK_SUCCESS;
}

struct gpu_context *gpu_context_new(const char *selector, gpu_before_device_fn before_device,
                                    void *arg, char *err, size_t errsz)
{
    struct gpu_context *g = calloc(1, sizeof *g);
    VkPhysicalDevice *list = NULL;
    if (!g) {
        set_err(err, errsz, "out of memory");
        return NULL;
    }
    VkResult vr = create_instance(&g->instance);
    if (vr != VK_SUCCESS) {
        set_err(err, errsz, "cannot create a Vulkan instance (VkResult %d): is a Vulkan driver installed?", vr);
        goto fail;
    }
    int n = enumerate(g->instance, &list);
    if (n <= 0) {
        set_err(err, errsz, "no Vulkan device found (install mesa-vulkan-drivers for lavapipe)");
        goto fail;
    }
    int idx = select_device(list, n, selector, err, errsz);
    if (idx < 0)
        goto fail;
    g->phys = list[idx];
    fill_info(g->phys, (uint32_t)idx, &g->info);
    uint32_t ts_bits = 0;
    if (!find_compute_queue(g->phys, &g->queue_family, &ts_bits)) {
        set_err(err, errsz, "device \"%s\" has no compute queue", g->info.name);
        goto fail;
    }
    if (before_device && !before_device(&g->info, arg, err, errsz))
        goto fail;
    pin_driver_for_leak_reports();
    if ((vr = create_device(g)) != VK_SUCCESS) {
        set_err(err, errsz, "cannot create the Vulkan device \"%s\" (VkResult %d)", g->info.name, vr);
        goto fail;
    }
    if ((vr = create_layouts(g)) != VK_SUCCESS ||
        (vr = create_buffers_and_commands(g, ts_bits)) != VK_SUCCESS) {
        set_err(err, errsz, "cannot set up buffers on \"%s\" (VkResult %d)", g->info.name, vr);
        goto fail;
    }
    free(list);
    return g;
fail:
    free(list);
    gpu_context_free(g);
    return NULL;
}

void gpu_context_free(struct gpu_context *g)
{
    if (!g)
        return;
    if (g->poisoned) {
        /* vkDestroyDevice would wait for the runaway dispatch; the process
         * exits soon and the OS takes everything back. */
        free(g);
        return;
    }
    if (g->device) {
        vkDeviceWaitIdle(g->device);
        if (g->query_pool)
            vkDestroyQueryPool(g->device, g->query_pool, NULL);
        if (g->fence)
            vkDestroyFence(g->device, g->fence, NULL);
        if (g->command_pool)
            vkDestroyCommandPool(g->device, g->command_pool, NULL);
        if (g->in_buf)
            vkDestroyBuffer(g->device, g->in_buf, NULL);
        if (g->out_buf)
            vkDestroyBuffer(g->device, g->out_buf, NULL);
        if (g->in_mem)
            vkFreeMemory(g->device, g->in_mem, NULL);
        if (g->out_mem)
            vkFreeMemory(g->device, g->out_mem, NULL);
        if (g->descriptor_pool)
            vkDestroyDescriptorPool(g->device, g->descriptor_pool, NULL);
        if (g->pipeline_layout)
            vkDestroyPipelineLayout(g->device, g->pipeline_layout, NULL);
        if (g->set_layout)
            vkDestroyDescriptorSetLayout(g->device, g->set_layout, NULL);
        vkDestroyDevice(g->device, NULL);
    }
    if (g->instance)
        vkDestroyInstance(g->instance, NULL);
    free(g);
}

const struct gpu_device_info *gpu_context_device(const struct gpu_context *g)
{
    return &g->info;
}

static VkResult record(struct gpu_context *g, VkPipeline pipeline, uint32_t nruns)
{
    VkCommandBufferBeginInfo bi = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
        .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
    };
    VkResult vr = vkBeginCommandBuffer(g->cmd, &bi);
    if (vr != VK_SUCCESS)
        return vr;
    if (g->query_pool) {
        vkCmdResetQueryPool(g->cmd, g->query_pool, 0, 2);
        vkCmdWriteTimestamp(g->cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, g->query_pool, 0);
    }
    vkCmdBindPipeline(g->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    /* One workgroup per run, each with its own slices bound: the runs write
     * disjoint outputs and only read their inputs, so no barrier between. */
    for (uint32_t r = 0; r < nruns; r++) {
        uint32_t offsets[2] = { (uint32_t)(r * g->in_stride), (uint32_t)(r * g->out_stride) };
        vkCmdBindDescriptorSets(g->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, g->pipeline_layout,
                                0, 1, &g->descriptor_set, 2, offsets);
        vkCmdDispatch(g->cmd, 1, 1, 1);
    }
    if (g->query_pool)
        vkCmdWriteTimestamp(g->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, g->query_pool, 1);
    /* make the shader's writes visible to the host's read of the mapping */
    VkMemoryBarrier mb = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_HOST_READ_BIT,
    };
    vkCmdPipelineBarrier(g->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                         VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
    return vkEndCommandBuffer(g->cmd);
}

/* A failed Vulkan call as a status: device loss poisons the context. */
static enum gpu_status failed(struct gpu_context *g, VkResult vr)
{
    if (vr == VK_ERROR_DEVICE_LOST) {
        g->poisoned = true;
        return GPU_DEVICE_LOST;
    }
    return GPU_ERROR;
}

enum gpu_status gpu_kernel_new(struct gpu_context *g, const struct exercise *e,
                               const uint32_t *spirv, size_t nwords, struct gpu_kernel **out,
                               char *err, size_t errsz)
{
    VkResult vr;
    *out = NULL;
    if (g->poisoned) {
        set_err(err, errsz, "the device is still busy with an earlier kernel");
        return GPU_DEVICE_LOST;
    }
    struct gpu_kernel *k = calloc(1, sizeof *k);
    if (!k) {
        set_err(err, errsz, "out of memory");
        return GPU_ERROR;
    }
    k->in_bytes = (uint32_t)RUN_IN_BYTES(e->in_n * e->in_planes);
    k->out_cells = (uint32_t)exercise_out_cells(e);
    VkShaderModuleCreateInfo smci = {
        .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
        .codeSize = nwords * 4,
        .pCode = spirv,
    };
    if ((vr = vkCreateShaderModule(g->device, &smci, NULL, &k->module)) != VK_SUCCESS) {
        set_err(err, errsz, "the driver refused the shader module (VkResult %d)", vr);
        goto fail;
    }
    VkComputePipelineCreateInfo pci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {
            .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
            .stage = VK_SHADER_STAGE_COMPUTE_BIT,
            .module = k->module,
            .pName = "main",
        },
        .layout = g->pipeline_layout,
    };
    vr = vkCreateComputePipelines(g->device, VK_NULL_HANDLE, 1, &pci, NULL, &k->pipeline);
    if (vr != VK_SUCCESS) {
        k->pipeline = VK_NULL_HANDLE;
        set_err(err, errsz, "the driver could not build the pipeline (VkResult %d)", vr);
        goto fail;
    }
    *out = k;
    return GPU_OK;
fail:
    gpu_kernel_free(g, k);
    return failed(g, vr);
}

void gpu_kernel_free(struct gpu_context *g, struct gpu_kernel *k)
{
    if (!k)
        return;
    /* after a timeout the dispatch may still use them: leave them be */
    if (!g->poisoned) {
        if (k->pipeline)
            vkDestroyPipeline(g->device, k->pipeline, NULL);
        if (k->module)
            vkDestroyShaderModule(g->device, k->module, NULL);
    }
    free(k);
}

/* Lays the runs' inputs out at their slices (the parameter, then the
 * input's floats: the leading bytes of a gpu_run) and poisons every
 * output. */
static void stage_runs(struct gpu_context *g, const struct gpu_kernel *k,
                       const struct gpu_run *runs, size_t nruns)
{
    size_t cells = k->out_cells;
    for (size_t r = 0; r < nruns; r++) {
        memcpy((char *)g->in_map + r * g->in_stride, &runs[r], k->in_bytes);
        char *slice = (char *)g->out_map + r * g->out_stride;
        float *values = (float *)slice;
        for (size_t i = 0; i < cells; i++)
            values[i] = NAN;   /* a cell the kernel does not write stays NaN and fails */
        /* no mark: a module without loops stores none (spirv_loops_drop_mark_store) */
        memset(slice + cells * sizeof(float), 0, cells * sizeof(uint32_t));
    }
}

static void collect_runs(struct gpu_context *g, const struct gpu_kernel *k, size_t nruns,
                         float *out, uint32_t *loops)
{
    size_t cells = k->out_cells;
    for (size_t r = 0; r < nruns; r++) {
        const char *slice = (const char *)g->out_map + r * g->out_stride;
        memcpy(out + r * cells, slice, cells * sizeof(float));
        if (loops)
            memcpy(loops + r * cells, slice + cells * sizeof(float), cells * sizeof(uint32_t));
    }
}

enum gpu_status gpu_kernel_run(struct gpu_context *g, struct gpu_kernel *k,
                               const struct gpu_run *runs, size_t nruns, float *out,
                               uint32_t *loops, uint32_t timeout_ms, struct gpu_timings *t,
                               char *err, size_t errsz)
{
    VkResult vr;
    double t0 = clock_now_ms();
    t->pipeline_ms = 0;
    t->run_ms = -1;
    if (g->poisoned) {
        set_err(err, errsz, "the device is still busy with an earlier kernel");
        return GPU_DEVICE_LOST;
    }
    if (nruns == 0 || nruns > EX_MAX_RUNS) {
        set_err(err, errsz, "bad run count %zu", nruns);
        return GPU_ERROR;
    }
    /* a kernel of another exercise than the last one run: its sizes */
    if (k->in_bytes != g->bound_in_bytes || k->out_cells != g->bound_out_cells)
        bind_ranges(g, k->in_bytes, k->out_cells);
    stage_runs(g, k, runs, nruns);
    if ((vr = vkResetCommandBuffer(g->cmd, 0)) != VK_SUCCESS ||
        (vr = record(g, k->pipeline, (uint32_t)nruns)) != VK_SUCCESS) {
        set_err(err, errsz, "recording the dispatch failed (VkResult %d)", vr);
        return failed(g, vr);
    }
    VkSubmitInfo si = {
        .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
        .commandBufferCount = 1,
        .pCommandBuffers = &g->cmd,
    };
    if ((vr = vkQueueSubmit(g->queue, 1, &si, g->fence)) != VK_SUCCESS) {
        set_err(err, errsz, "queue submit failed (VkResult %d)", vr);
        return failed(g, vr);
    }
    vr = vkWaitForFences(g->device, 1, &g->fence, VK_TRUE, (uint64_t)timeout_ms * 1000000ull);
    t->pipeline_ms = clock_now_ms() - t0;
    if (vr == VK_TIMEOUT) {
        /* The queue cannot be cancelled: leave everything as it is. */
        g->poisoned = true;
        set_err(err, errsz, "the kernel did not finish within %u ms", timeout_ms);
        return GPU_TIMEOUT;
    }
    if (vr != VK_SUCCESS) {
        /* the fence may never signal now: nothing here can be reused */
        g->poisoned = true;
        set_err(err, errsz, "waiting for the device failed (VkResult %d)", vr);
        return GPU_DEVICE_LOST;
    }
    if ((vr = vkResetFences(g->device, 1, &g->fence)) != VK_SUCCESS) {
        g->poisoned = true;
        set_err(err, errsz, "resetting the fence failed (VkResult %d)", vr);
        return GPU_DEVICE_LOST;
    }
    if (g->query_pool) {
        uint64_t ts[2];
        if (vkGetQueryPoolResults(g->device, g->query_pool, 0, 2, sizeof ts, ts, sizeof ts[0],
                                  VK_QUERY_RESULT_64_BIT) == VK_SUCCESS && ts[1] >= ts[0])
            t->run_ms = (double)(ts[1] - ts[0]) * g->timestamp_period_ns / 1e6;
    }
    collect_runs(g, k, nruns, out, loops);
    return GPU_OK;
}

enum gpu_status gpu_run(struct gpu_context *g, const struct exercise *e, const uint32_t *spirv,
                        size_t nwords, const struct gpu_run *runs, size_t nruns, float *out,
                        uint32_t *loops, uint32_t timeout_ms, struct gpu_timings *t,
                        char *err, size_t errsz)
{
    struct gpu_kernel *k;
    double t0 = clock_now_ms();
    t->pipeline_ms = 0;
    t->run_ms = -1;
    enum gpu_status st = gpu_kernel_new(g, e, spirv, nwords, &k, err, errsz);
    if (st != GPU_OK)
        return st;
    double built_ms = clock_now_ms() - t0;
    st = gpu_kernel_run(g, k, runs, nruns, out, loops, timeout_ms, t, err, errsz);
    t->pipeline_ms += built_ms;
    gpu_kernel_free(g, k);
    return st;
}
