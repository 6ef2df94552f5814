/* A pool of threads kept for an object's life (the compiled batch, the compiled features): each
   call hands the threads their jobs and returns when every job is done, without the cost of
   starting threads on every call.

   tt_threads_new(threads) starts threads 1..threads-1 (the caller is thread 0) and may hand back
   fewer than asked, or none (NULL). tt_threads_run(pool, task, jobs, n) runs task(jobs[t]) once
   for each t = 0..n-1: job 0 on the caller, job t offered to the pool's thread t. A thread
   claims its job when it wakes; once the caller is done with its own, it runs every job that
   no thread has claimed yet (and those no thread of the pool could take: too few threads, no
   pool, or a forked child, where none of the pool's threads exist), then waits for the claimed
   ones. So a thread that the machine's other work keeps off a core delays nothing: its job is
   done by the caller instead. A job must not depend on the thread that runs it beyond its own
   data (job t may use thread t's workspace: only one thread runs it). tt_threads_free(pool)
   stops and joins the threads. Call tt_threads_run() and tt_threads_free() without the GIL (the
   jobs are plain C). Without POSIX threads (Windows) there is no pool, and tt_threads_run() runs
   every job on the caller. Header only: each module compiles its own static copy. */

#ifndef TT_THREADS_H
#define TT_THREADS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#ifndef _WIN32
#include <pthread.h>
#include <time.h>
#include <unistd.h>
#endif

#define TT_THREADS_MAX 64 /* the most threads a pool holds, the caller's included */

typedef void (*tt_threads_task)(void *job);

#ifndef _WIN32
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t start, done;
    long generation; /* one more for every call to run */
    int running;     /* jobs claimed by the threads and not finished */
    int stop;        /* the threads are to end */
    int count;       /* threads 1..count were started */
    pid_t owner;     /* a forked child has none of these threads: it runs every job itself */
    tt_threads_task task;
    void *jobs[TT_THREADS_MAX]; /* the job offered to each thread, NULL once claimed or none */
    pthread_t ids[TT_THREADS_MAX];
} tt_threads;

typedef struct {
    tt_threads *pool;
    int index;
} tt_threads_arg;

/* A thread that finished a job watches for the next call for up to TT_THREADS_SPIN_NS before it
   sleeps: a batch is stepped call after call, with little Python between, and waking a sleeping
   thread costs about as much as the job it would take. */
#define TT_THREADS_SPIN_NS 200000L

static inline long tt_threads_now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long)now.tv_sec * 1000000000L + now.tv_nsec;
}

/* Called with the lock held, which it gives up while it watches. */
static inline void tt_threads_spin(tt_threads *pool, long seen) {
    pthread_mutex_unlock(&pool->lock);
    const long until = tt_threads_now_ns() + TT_THREADS_SPIN_NS;
    for (int i = 1;; i++) {
        if (__atomic_load_n(&pool->generation, __ATOMIC_ACQUIRE) != seen) break;
        if (__atomic_load_n(&pool->stop, __ATOMIC_ACQUIRE)) break;
        if (i % 64 == 0 && tt_threads_now_ns() > until) break;
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
    pthread_mutex_lock(&pool->lock);
}

static inline void *tt_threads_worker(void *arg) {
    tt_threads *pool = ((tt_threads_arg *)arg)->pool;
    const int me = ((tt_threads_arg *)arg)->index;
    PyMem_RawFree(arg);
    long seen = 0;
    pthread_mutex_lock(&pool->lock);
    for (;;) {
        if (pool->generation == seen && !pool->stop) tt_threads_spin(pool, seen);
        while (pool->generation == seen && !pool->stop)
            pthread_cond_wait(&pool->start, &pool->lock);
        if (pool->stop) break;
        seen = pool->generation;
        void *job = pool->jobs[me]; /* NULL: none, or the caller took it meanwhile */
        if (job == NULL) continue;
        pool->jobs[me] = NULL;
        pool->running++;
        tt_threads_task task = pool->task;
        pthread_mutex_unlock(&pool->lock);
        task(job);
        pthread_mutex_lock(&pool->lock);
        if (--pool->running == 0) pthread_cond_signal(&pool->done);
    }
    pthread_mutex_unlock(&pool->lock);
    return NULL;
}

/* Threads 1..threads-1 (as many as could be started); NULL when out of memory. */
static inline tt_threads *tt_threads_new(int threads) {
    tt_threads *pool = PyMem_RawCalloc(1, sizeof *pool);
    if (pool == NULL) return NULL;
    pthread_mutex_init(&pool->lock, NULL);
    pthread_cond_init(&pool->start, NULL);
    pthread_cond_init(&pool->done, NULL);
    pool->owner = getpid();
    if (threads > TT_THREADS_MAX) threads = TT_THREADS_MAX;
    for (int t = 1; t < threads; t++) {
        tt_threads_arg *arg = PyMem_RawMalloc(sizeof *arg);
        if (arg == NULL) break;
        *arg = (tt_threads_arg){pool, t};
        if (pthread_create(&pool->ids[t], NULL, tt_threads_worker, arg) != 0) {
            PyMem_RawFree(arg);
            break;
        }
        pool->count = t;
    }
    return pool;
}

static inline void tt_threads_free(tt_threads *pool) {
    if (pool == NULL) return;
    if (pool->owner == getpid()) {
        pthread_mutex_lock(&pool->lock);
        __atomic_store_n(&pool->stop, 1, __ATOMIC_RELEASE);
        pthread_cond_broadcast(&pool->start);
        pthread_mutex_unlock(&pool->lock);
        for (int t = 1; t <= pool->count; t++) pthread_join(pool->ids[t], NULL);
    }
    pthread_mutex_destroy(&pool->lock);
    pthread_cond_destroy(&pool->start);
    pthread_cond_destroy(&pool->done);
    PyMem_RawFree(pool);
}

/* task(jobs[t]) for t = 0..n-1 (see the top of this file). */
static inline void tt_threads_run(tt_threads *pool, tt_threads_task task, void *const *jobs,
                                  int n) {
    int helpers = pool != NULL && pool->owner == getpid() ? pool->count : 0;
    if (helpers > n - 1) helpers = n - 1;
    if (helpers > 0) {
        pthread_mutex_lock(&pool->lock);
        pool->task = task;
        for (int t = 1; t <= helpers; t++) pool->jobs[t] = jobs[t];
        __atomic_add_fetch(&pool->generation, 1, __ATOMIC_RELEASE);
        pthread_cond_broadcast(&pool->start);
        pthread_mutex_unlock(&pool->lock);
    }
    if (n > 0) task(jobs[0]);
    for (int t = helpers + 1; t < n; t++) task(jobs[t]); /* jobs no thread could take */
    if (helpers > 0) {
        void *left[TT_THREADS_MAX];
        int unclaimed = 0;
        pthread_mutex_lock(&pool->lock);
        for (int t = 1; t <= helpers; t++) {
            if (pool->jobs[t] != NULL) left[unclaimed++] = pool->jobs[t];
            pool->jobs[t] = NULL; /* a thread that wakes later finds nothing to do */
        }
        pthread_mutex_unlock(&pool->lock);
        for (int i = 0; i < unclaimed; i++) task(left[i]);
        pthread_mutex_lock(&pool->lock);
        while (pool->running > 0) pthread_cond_wait(&pool->done, &pool->lock);
        pthread_mutex_unlock(&pool->lock);
    }
}
#else
typedef struct tt_threads tt_threads; /* never made */

static inline tt_threads *tt_threads_new(int threads) {
    (void)threads;
    return NULL;
}

static inline void tt_threads_free(tt_threads *pool) { (void)pool; }

static inline void tt_threads_run(tt_threads *pool, tt_threads_task task, void *const *jobs,
                                  int n) {
    (void)pool;
    for (int t = 0; t < n; t++) task(jobs[t]);
}
#endif

#endif /* TT_THREADS_H */
