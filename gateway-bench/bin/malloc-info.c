/*
 * Preloaded into the gateway by measure-memory (MALLOC_INFO=1): when the file named by MALLOC_INFO_TRIGGER appears,
 * writes glibc's malloc_info(3) XML to that name plus ".xml" and removes the trigger. RSS shows the malloc memory a
 * snapshot happens to hold, including freed memory glibc has not returned; malloc_info tells the bytes in use apart
 * from the free ones, which is what a connection costs.
 */
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void *watch(void *trigger) {
    char out[4096];
    snprintf(out, sizeof out, "%s.xml", (const char *) trigger);
    for (;;) {
        if (access(trigger, F_OK) == 0) {
            FILE *f = fopen(out, "w");
            if (f != NULL) {
                malloc_info(0, f);
                fclose(f);
            }
            unlink(trigger);
        }
        usleep(200000);
    }
    return NULL;
}

__attribute__((constructor)) static void start(void) {
    char *trigger = getenv("MALLOC_INFO_TRIGGER");
    pthread_t thread;
    if (trigger != NULL && pthread_create(&thread, NULL, watch, trigger) == 0) {
        pthread_detach(thread);
    }
}
