// qemu-insn-count.c — a QEMU TCG plugin (API version 1, QEMU 7.2) that counts the guest instructions a user-mode
// program executes and prints `guest-instructions: N` on stderr when it exits. Built and used by scripts/aarch64-ipp.sh
// (`qemu-aarch64 -plugin qemu-insn-count.so[,hot=N] PROGRAM …`).
//
// Each translated block adds its instruction count to one counter when it starts: an inline add, no helper call, so
// the count costs little emulation time. A block left early (a fault, an exit in its middle) still counts whole; the
// whole process is counted (loader, set-up, allocation), which the caller cancels by running 3 calls and 1 call and
// taking the difference. The counters are not atomic: run the program on one thread.
//
// hot=N also prints the N functions (by the program's own symbol table; a shared library's code has none) and the N
// blocks that executed the most instructions: where a kernel spends them, to read next to `llvm-objdump -d`.
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

static uint64_t executed;

// One translation of a block (a block translated again gets a second record; they are summed by address at exit).
struct block {
    uint64_t vaddr, instructions, runs;
    const char *symbol;
};
static struct block **blocks;
static size_t block_count, block_capacity;
static long hot;

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
    (void)id;
    size_t n = qemu_plugin_tb_n_insns(tb);
    qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &executed, n);
    if (hot <= 0 || n == 0) return;
    if (block_count == block_capacity) {
        size_t capacity = block_capacity ? 2 * block_capacity : 4096;
        struct block **grown = realloc(blocks, capacity * sizeof *grown);
        if (!grown) return;
        blocks = grown;
        block_capacity = capacity;
    }
    struct block *b = calloc(1, sizeof *b);
    if (!b) return;
    const char *symbol = qemu_plugin_insn_symbol(qemu_plugin_tb_get_insn(tb, 0));
    *b = (struct block){.vaddr = qemu_plugin_tb_vaddr(tb), .instructions = n, .symbol = symbol ? symbol : "?"};
    blocks[block_count++] = b;
    qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &b->runs, 1);
}

static int by_symbol(const void *a, const void *b) {
    const struct block *x = *(struct block *const *)a, *y = *(struct block *const *)b;
    int order = strcmp(x->symbol, y->symbol);
    return order ? order : (x->vaddr > y->vaddr) - (x->vaddr < y->vaddr);
}

// Summed instructions (runs × length) in `runs`, largest first.
static int by_weight(const void *a, const void *b) {
    const struct block *x = *(struct block *const *)a, *y = *(struct block *const *)b;
    return (x->runs < y->runs) - (x->runs > y->runs);
}

// Merges neighbours that `equal` says are one (the array sorted so they are adjacent) into `into`, weights in `runs`.
static size_t merge(struct block **into, int (*equal)(const struct block *, const struct block *)) {
    size_t kept = 0;
    for (size_t i = 0; i < block_count; i++) {
        uint64_t weight = blocks[i]->runs * blocks[i]->instructions;
        if (kept && equal(into[kept - 1], blocks[i])) {
            into[kept - 1]->runs += weight;
        } else {
            into[kept] = malloc(sizeof **into);
            if (!into[kept]) break;
            *into[kept] = *blocks[i];
            into[kept++]->runs = weight;
        }
    }
    qsort(into, kept, sizeof *into, by_weight);
    return kept;
}
static int same_symbol(const struct block *a, const struct block *b) { return strcmp(a->symbol, b->symbol) == 0; }
static int same_block(const struct block *a, const struct block *b) {
    return a->vaddr == b->vaddr && strcmp(a->symbol, b->symbol) == 0;
}

static void print_hot(void) {
    struct block **merged = malloc((block_count + 1) * sizeof *merged);
    if (!merged) return;
    qsort(blocks, block_count, sizeof *blocks, by_symbol);
    size_t kept = merge(merged, same_symbol);
    for (size_t i = 0; i < kept && i < (size_t)hot; i++)
        fprintf(stderr, "hot-function: %" PRIu64 " %s\n", merged[i]->runs, merged[i]->symbol);
    for (size_t i = 0; i < kept; i++) free(merged[i]);
    kept = merge(merged, same_block);
    for (size_t i = 0; i < kept && i < (size_t)hot; i++)
        fprintf(stderr, "hot-block: %" PRIu64 " 0x%" PRIx64 " %s\n", merged[i]->runs, merged[i]->vaddr, merged[i]->symbol);
    for (size_t i = 0; i < kept; i++) free(merged[i]);
    free(merged);
}

static void at_exit(qemu_plugin_id_t id, void *unused) {
    (void)id;
    (void)unused;
    if (hot > 0) {
        fprintf(stderr, "code-start: 0x%" PRIx64 "\n", qemu_plugin_start_code());
        print_hot();
    }
    fprintf(stderr, "guest-instructions: %" PRIu64 "\n", executed);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv) {
    (void)info;
    for (int i = 0; i < argc; i++) {
        if (strncmp(argv[i], "hot=", 4) == 0) {
            hot = strtol(argv[i] + 4, NULL, 10);
        } else {
            fprintf(stderr, "qemu-insn-count: unknown argument %s (hot=N is the only one)\n", argv[i]);
            return -1;
        }
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    qemu_plugin_register_atexit_cb(id, at_exit, NULL);
    return 0;
}
