/* Recording tee: serialized messages on their way to the middleware, copied into MCAP chunks.
 *
 * The compiled fast path delivers every message through one C function, int32 deliver(handle, message, allocation)
 * (runtime/fast_path/delivery.py). mvsim_tee_deliver is such a function: it calls the real delivery (the target,
 * e.g. rcl's serialized publish) and, while recording, appends the bytes it delivered to the chunk being built, as
 * an MCAP Message record (opcode 0x05) of the channel registered for that handle. Messages published from Python
 * enter through mvsim_tee_record. Nothing is decoded: the log time is read from the message's own stamp where its
 * type starts with one (see the stamp rules below), else the caller's time.
 *
 * A chunk is sealed when its records pass the chunk size (or when the writer asks, mvsim_tee_take) and queued for
 * the writer thread, which compresses it and writes it with its message indexes (output/recording/mcap_file.py).
 * When more than the queue limit of bytes waits, or the oldest waiting chunk was sealed more than the lag limit of
 * wall time ago, the publishing thread waits for the writer: messages are never dropped, the simulation slows
 * instead, and the file stays within about the lag limit of the simulation.
 *
 * The writer is a Python thread: it needs the GIL between its compressions and writes. A publishing thread that
 * holds the GIL (the compiled steps run with it held) therefore lets go of it while it waits, and takes it back
 * before it returns: the wait can never hold the writer up (see wait_for_room).
 *
 * Forwarding gate (the Foxglove server's live channels): after a successful delivery, a handle given a gate
 * (mvsim_tee_gate) has the message handed to the forward function (mvsim_tee_set_forward, same ABI; the Python
 * side copies the bytes to a WebSocket channel) only when it is due: at or after the gate's next due time, which
 * each forwarded message moves on by the gate's interval of wall time (CLOCK_MONOTONIC). A stream faster than the
 * limit is forwarded at one message per interval on average; one slower than it is forwarded whole even when a
 * message comes up to one interval early (the credit of the intervals left unused before it). Messages that are
 * not due, and every message of a handle without a gate, cost one lookup and go on to the caller: no Python code
 * runs for them. A gate of interval 0 forwards every message (transient-local topics).
 *
 * Thread safety: one mutex around the chunk being built, the handle table and the queue; another around the gate
 * table. The GIL is never taken while either mutex is held (the forward function is called after unlocking).
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXPORT __attribute__((visibility("default")))

typedef int32_t (*deliver_fn)(uintptr_t handle, uintptr_t message, uintptr_t allocation);

/* rcutils_uint8_array_t (rcl_serialized_message_t): what a delivered message points at. */
typedef struct {
    uint8_t *buffer;
    size_t buffer_length;
    size_t buffer_capacity;
} serialized_message;

/* Stamp rules: where a message's first field holds a builtin_interfaces/Time in CDR (little endian, after the 4-byte
 * encapsulation header). */
enum { STAMP_NONE = 0, STAMP_FIRST = 1, STAMP_FIRST_ELEMENT = 2 };

/* One message index entry of a chunk: the channel, the log time [ns] and the record's offset in the chunk. */
typedef struct {
    uint64_t channel;
    uint64_t log_time;
    uint64_t offset;
} index_entry;

/* A sealed chunk, read by the writer through ctypes (same layout there). */
typedef struct chunk {
    uint8_t *records;
    uint64_t records_length;
    index_entry *index;
    uint64_t count;
    uint64_t start_time;
    uint64_t end_time;
    uint64_t records_capacity;
    uint64_t index_capacity;
    uint64_t sealed_at;  /* CLOCK_MONOTONIC [ns] when it was queued */
    struct chunk *next;
} chunk;

#define TABLE_SLOTS 65536u  /* handles (publishers) that can be registered; a power of two */
#define RECORD_HEADER 31u   /* opcode 1 + length 8 + channel 2 + sequence 4 + log time 8 + publish time 8 */

typedef struct {
    uintptr_t handle;
    int32_t channel;
    int32_t rule;
    uint32_t sequence;
} table_slot;

static deliver_fn target;
static int recording;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queued = PTHREAD_COND_INITIALIZER;
static pthread_cond_t drained = PTHREAD_COND_INITIALIZER;
static table_slot table[TABLE_SLOTS];
static chunk *building;
static chunk *queue_head, *queue_tail;
static uint64_t queue_bytes, queue_limit = 256u << 20, chunk_size = 1u << 20;
static uint64_t lag_limit_ns = 500000000u;  /* longest wall time [ns] a sealed chunk waits before publishing waits */
static uint64_t last_time, failures;

static uint64_t monotonic_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
}

/* The GIL functions of the Python running this process, looked up once (all three, or none when the library is
 * loaded by a program without Python). */
typedef struct {
    int (*held)(void);        /* PyGILState_Check: whether this thread holds the GIL */
    void *(*release)(void);   /* PyEval_SaveThread */
    void (*take)(void *);     /* PyEval_RestoreThread */
} python_gil;

static python_gil gil;
static pthread_once_t gil_looked_up = PTHREAD_ONCE_INIT;

static void look_up_gil(void) {
    python_gil found = {(int (*)(void))dlsym(RTLD_DEFAULT, "PyGILState_Check"),
                        (void *(*)(void))dlsym(RTLD_DEFAULT, "PyEval_SaveThread"),
                        (void (*)(void *))dlsym(RTLD_DEFAULT, "PyEval_RestoreThread")};
    if (found.held && found.release && found.take) gil = found;
}

static uint32_t slot_of(uintptr_t handle) {
    uint64_t h = (uint64_t)handle * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(h >> 48) & (TABLE_SLOTS - 1);
}

static table_slot *find(uintptr_t handle, int insert) {
    uint32_t i = slot_of(handle);
    for (uint32_t probe = 0; probe < TABLE_SLOTS; probe++, i = (i + 1) & (TABLE_SLOTS - 1)) {
        if (table[i].handle == handle) return &table[i];
        if (table[i].handle == 0) return insert ? &table[i] : NULL;
    }
    return NULL;
}

static uint32_t read_u32(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* The message's stamp [ns] by its rule, or `fallback` when it has none (or a negative one). */
static uint64_t stamp_of(int rule, const uint8_t *data, size_t length, uint64_t fallback) {
    size_t at = rule == STAMP_FIRST ? 4 : rule == STAMP_FIRST_ELEMENT ? 8 : 0;
    if (at == 0 || length < at + 8) return fallback;
    if (rule == STAMP_FIRST_ELEMENT && read_u32(data + 4) == 0) return fallback;
    int32_t sec = (int32_t)read_u32(data + at);
    uint32_t nsec = read_u32(data + at + 4);
    if (sec < 0) return fallback;
    return (uint64_t)sec * 1000000000ull + nsec;
}

/* Chunks handed back by the writer, kept for reuse: their memory is already mapped, so filling them again costs no
 * page faults on the publishing thread. */
#define SPARE_CHUNKS 4
static chunk *spare[SPARE_CHUNKS];
static int spare_count;

static void release(chunk *c) {
    free(c->records);
    free(c->index);
    free(c);
}

static chunk *new_chunk(void) {
    if (spare_count > 0) {
        chunk *c = spare[--spare_count];
        c->records_length = c->count = c->start_time = c->end_time = 0;
        c->next = NULL;
        return c;
    }
    chunk *c = calloc(1, sizeof(chunk));
    if (c == NULL) return NULL;
    c->records_capacity = chunk_size + (64u << 10);
    c->index_capacity = 4096;
    c->records = malloc(c->records_capacity);
    c->index = malloc(c->index_capacity * sizeof(index_entry));
    if (c->records == NULL || c->index == NULL) {
        free(c->records);
        free(c->index);
        free(c);
        return NULL;
    }
    return c;
}

static int grow(void **p, uint64_t *capacity, uint64_t needed, size_t item) {
    if (needed <= *capacity) return 0;
    uint64_t capacity2 = *capacity * 2 > needed ? *capacity * 2 : needed;
    void *q = realloc(*p, capacity2 * item);
    if (q == NULL) return -1;
    *p = q;
    *capacity = capacity2;
    return 0;
}

/* Queue the chunk being built (if it holds a message); the caller holds the lock. */
static void seal(void) {
    if (building == NULL || building->count == 0) return;
    building->next = NULL;
    building->sealed_at = monotonic_ns();
    if (queue_tail) queue_tail->next = building; else queue_head = building;
    queue_tail = building;
    queue_bytes += building->records_length;
    building = NULL;
    pthread_cond_signal(&queued);
}

/* Whether publishing must wait for the writer: too many bytes waiting, or the oldest chunk waiting too long. The
 * caller holds the lock. */
static int writer_behind(void) {
    if (!recording || queue_head == NULL) return 0;
    return queue_bytes > queue_limit || monotonic_ns() - queue_head->sealed_at > lag_limit_ns;
}

/* Wait until the writer has caught up (writer_behind); the caller holds the lock, which is released while waiting.
 * A thread holding the GIL lets go of it first and takes it back after the mutex was released, so that neither
 * the writer (which needs the GIL) nor a thread holding the GIL and wanting the mutex can be held up. */
static void wait_for_room(void) {
    pthread_once(&gil_looked_up, look_up_gil);
    while (writer_behind()) {
        void *python_thread = NULL;
        if (gil.held != NULL && gil.held()) {
            pthread_mutex_unlock(&lock);
            python_thread = gil.release();
            pthread_mutex_lock(&lock);
        }
        while (writer_behind()) pthread_cond_wait(&drained, &lock);
        if (python_thread != NULL) {
            pthread_mutex_unlock(&lock);
            gil.take(python_thread);
            pthread_mutex_lock(&lock);
        }
    }
}

/* Append one Message record; the caller holds the lock. 0, or -1 when memory ran out (counted in failures). */
static int append(table_slot *slot, const uint8_t *data, size_t length, uint64_t fallback) {
    if (building == NULL && (building = new_chunk()) == NULL) return -1;
    chunk *c = building;
    uint64_t log_time = stamp_of(slot->rule, data, length, fallback);
    if (grow((void **)&c->records, &c->records_capacity, c->records_length + RECORD_HEADER + length, 1) != 0 ||
        grow((void **)&c->index, &c->index_capacity, c->count + 1, sizeof(index_entry)) != 0) return -1;
    uint8_t *r = c->records + c->records_length;
    uint64_t record_length = RECORD_HEADER - 9 + length;
    uint16_t channel = (uint16_t)slot->channel;
    uint32_t sequence = slot->sequence++;
    r[0] = 0x05;
    memcpy(r + 1, &record_length, 8);
    memcpy(r + 9, &channel, 2);
    memcpy(r + 11, &sequence, 4);
    memcpy(r + 15, &log_time, 8);
    memcpy(r + 23, &log_time, 8);
    memcpy(r + RECORD_HEADER, data, length);
    index_entry *e = &c->index[c->count];
    e->channel = channel;
    e->log_time = log_time;
    e->offset = c->records_length;
    if (c->count == 0 || log_time < c->start_time) c->start_time = log_time;
    if (c->count == 0 || log_time > c->end_time) c->end_time = log_time;
    c->count++;
    c->records_length += RECORD_HEADER + length;
    last_time = log_time;
    if (c->records_length >= chunk_size) {
        seal();
        wait_for_room();
    }
    return 0;
}

/* Record a message published on `handle`; the caller holds the lock. 0, or -1 when the handle is not registered
 * or its topic is not recorded (a message that cannot be appended is counted in failures). */
static int32_t record_locked(uintptr_t handle, const uint8_t *data, size_t length, uint64_t fallback) {
    table_slot *slot = find(handle, 0);
    if (slot == NULL || slot->channel < 0) return -1;
    if (append(slot, data, length, fallback) != 0) failures++;
    return 0;
}

/* The forwarding gates: one per handle given one (an open-addressing table like the recording's). */
typedef struct {
    uintptr_t handle;
    int64_t interval_ns;  /* minimum wall time [ns] between forwarded messages; < 0: not forwarded */
    uint64_t next_due;    /* CLOCK_MONOTONIC [ns] from which the next message is forwarded */
} gate_slot;

static gate_slot gates[TABLE_SLOTS];
static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static deliver_fn forward;

static gate_slot *find_gate(uintptr_t handle, int insert) {
    uint32_t i = slot_of(handle);
    for (uint32_t probe = 0; probe < TABLE_SLOTS; probe++, i = (i + 1) & (TABLE_SLOTS - 1)) {
        if (gates[i].handle == handle) return &gates[i];
        if (gates[i].handle == 0) return insert ? &gates[i] : NULL;
    }
    return NULL;
}

/* Whether a message on `handle` delivered at `now` [ns] is forwarded. A forwarded message moves the handle's next
 * due time on by its interval, from one interval before `now` at the earliest: a message may take the credit of at
 * most one unused interval, so that a steady stream under the limit passes whole despite jitter, no more than two
 * messages pass within one interval, and the average over any span is at most one per interval (plus one). */
EXPORT int32_t mvsim_tee_gate_pass(uintptr_t handle, uint64_t now) {
    int32_t due = 0;
    pthread_mutex_lock(&gate_lock);
    gate_slot *slot = find_gate(handle, 0);
    if (slot != NULL && slot->interval_ns >= 0 && now >= slot->next_due) {
        uint64_t interval = (uint64_t)slot->interval_ns;
        uint64_t earliest = now > interval ? now - interval : 0;
        slot->next_due = (slot->next_due > earliest ? slot->next_due : earliest) + interval;
        due = 1;
    }
    pthread_mutex_unlock(&gate_lock);
    return due;
}

/* Forward messages delivered on `handle` at most once per `interval_ns` of wall time [ns] (0: every message; < 0:
 * none). The first message after this call is due. Returns 0, or -1 when the gate table is full. */
EXPORT int32_t mvsim_tee_gate(uintptr_t handle, int64_t interval_ns) {
    int32_t result = -1;
    pthread_mutex_lock(&gate_lock);
    gate_slot *slot = find_gate(handle, 1);
    if (slot != NULL) {
        slot->handle = handle;
        slot->interval_ns = interval_ns;
        slot->next_due = 0;
        result = 0;
    }
    pthread_mutex_unlock(&gate_lock);
    return result;
}

/* Forget every gate (no handle is forwarded until given a gate again). */
EXPORT void mvsim_tee_gate_clear(void) {
    pthread_mutex_lock(&gate_lock);
    memset(gates, 0, sizeof(gates));
    pthread_mutex_unlock(&gate_lock);
}

/* Where due messages are forwarded after their delivery (a function of the delivery ABI, whose result is
 * ignored); NULL: nowhere, and no gate is consulted. */
EXPORT void mvsim_tee_set_forward(deliver_fn function) { __atomic_store_n(&forward, function, __ATOMIC_RELEASE); }

/* The delivery function the compiled code calls: deliver, then record what was delivered and forward it when its
 * gate says it is due. */
EXPORT int32_t mvsim_tee_deliver(uintptr_t handle, uintptr_t message, uintptr_t allocation) {
    int32_t result = target(handle, message, allocation);
    if (result == 0 && __atomic_load_n(&recording, __ATOMIC_RELAXED)) {
        const serialized_message *m = (const serialized_message *)message;
        pthread_mutex_lock(&lock);
        if (recording) record_locked(handle, m->buffer, m->buffer_length, last_time);
        pthread_mutex_unlock(&lock);
    }
    if (result == 0) {
        deliver_fn forward_to = __atomic_load_n(&forward, __ATOMIC_ACQUIRE);
        if (forward_to != NULL && mvsim_tee_gate_pass(handle, monotonic_ns())) forward_to(handle, message, allocation);
    }
    return result;
}

/* Where mvsim_tee_deliver delivers (rcl_publish_serialized_message or another function of the same ABI). */
EXPORT void mvsim_tee_set_target(deliver_fn function) { target = function; }

/* Record `length` bytes published on `handle` by other means (Python); `fallback` [ns]: the log time for a
 * message without a stamp. Returns 0, or -1 when the handle is not registered. */
EXPORT int32_t mvsim_tee_record(uintptr_t handle, const uint8_t *data, uint64_t length, uint64_t fallback) {
    int32_t result = 0;
    pthread_mutex_lock(&lock);
    if (recording) result = record_locked(handle, data, length, fallback);
    pthread_mutex_unlock(&lock);
    return result;
}

/* Messages on `handle` go to MCAP channel `channel` (-1: not recorded) with stamp rule `rule`. Returns 0, or -1
 * when the table is full. */
EXPORT int32_t mvsim_tee_register(uintptr_t handle, int32_t channel, int32_t rule) {
    int32_t result = -1;
    pthread_mutex_lock(&lock);
    table_slot *slot = find(handle, 1);
    if (slot != NULL) {
        if (slot->handle != handle || slot->channel != channel) slot->sequence = 0;
        slot->handle = handle;
        slot->channel = channel;
        slot->rule = rule;
        result = 0;
    }
    pthread_mutex_unlock(&lock);
    return result;
}

/* Start recording: chunks of about `size` bytes of records, at most `limit` bytes waiting for the writer, none of
 * them waiting longer than `lag_ns` of wall time [ns]. */
EXPORT void mvsim_tee_start(uint64_t size, uint64_t limit, uint64_t lag_ns) {
    pthread_mutex_lock(&lock);
    chunk_size = size;
    queue_limit = limit;
    lag_limit_ns = lag_ns;
    failures = 0;
    last_time = 0;
    __atomic_store_n(&recording, 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&lock);
}

/* Stop recording: the chunk being built is queued, the spare chunks freed, the handles forgotten, publishers
 * waiting released. */
EXPORT void mvsim_tee_stop(void) {
    pthread_mutex_lock(&lock);
    __atomic_store_n(&recording, 0, __ATOMIC_RELAXED);
    seal();
    while (spare_count > 0) release(spare[--spare_count]);
    memset(table, 0, sizeof(table));
    pthread_cond_broadcast(&drained);
    pthread_cond_broadcast(&queued);
    pthread_mutex_unlock(&lock);
}

/* The next sealed chunk, waiting up to `timeout_ms`; when none came and `seal_partial`, the chunk being built (so
 * that a slow stream still reaches the file). NULL when there is nothing. The caller frees it (mvsim_tee_free). */
EXPORT chunk *mvsim_tee_take(int32_t timeout_ms, int32_t seal_partial) {
    pthread_mutex_lock(&lock);
    if (queue_head == NULL && timeout_ms > 0) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += timeout_ms / 1000;
        until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        while (queue_head == NULL) {
            if (pthread_cond_timedwait(&queued, &lock, &until) == ETIMEDOUT) break;
            if (!recording) break;
        }
    }
    if (queue_head == NULL && seal_partial) seal();
    chunk *c = queue_head;
    if (c != NULL) {
        queue_head = c->next;
        if (queue_head == NULL) queue_tail = NULL;
        queue_bytes -= c->records_length;
        pthread_cond_broadcast(&drained);
    }
    pthread_mutex_unlock(&lock);
    return c;
}

/* Hand a chunk back (after writing it): kept for reuse while recording, else freed. */
EXPORT void mvsim_tee_free(chunk *c) {
    if (c == NULL) return;
    pthread_mutex_lock(&lock);
    if (recording && spare_count < SPARE_CHUNKS) {
        spare[spare_count++] = c;
        c = NULL;
    }
    pthread_mutex_unlock(&lock);
    if (c != NULL) release(c);
}

/* Messages that could not be recorded (memory ran out) since the start. */
EXPORT uint64_t mvsim_tee_failures(void) {
    pthread_mutex_lock(&lock);
    uint64_t n = failures;
    pthread_mutex_unlock(&lock);
    return n;
}
