#!/usr/bin/env python3
"""planted.json as an Nsight Systems SQLite export: the same events in the tables and columns of
`nsys export --type sqlite` as /work/shared/timeline/FORMATS.md section 3 records them from real exports
(nsys cannot run on the machines this project has: this file is built to that layout, not by nsys).
Runtime names carry nsys' version suffixes; times are integer ns; aten::item and ProfilerStep#1 are
NVTX push/pop ranges (eventType 59). usage: make_planted_sqlite.py planted.json planted.sqlite"""
import json
import os
import sqlite3
import sys

src, out = sys.argv[1], sys.argv[2]
events = json.load(open(src))["traceEvents"]
if os.path.exists(out):
    os.remove(out)
db = sqlite3.connect(out)
db.executescript("""
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER, id INTEGER, name TEXT, busLocation TEXT, isDiscrete INTEGER,
  l2CacheSize INTEGER, totalMemory INTEGER, memoryBandwidth INTEGER, clockRate INTEGER, smCount INTEGER,
  computeMajor INTEGER, computeMinor INTEGER);
CREATE TABLE ENUM_CUDA_MEM_KIND (id INTEGER PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE ENUM_CUDA_MEMCPY_OPER (id INTEGER PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER, launchType INTEGER,
  cacheConfig INTEGER, registersPerThread INTEGER, gridX INTEGER, gridY INTEGER, gridZ INTEGER, blockX INTEGER,
  blockY INTEGER, blockZ INTEGER, staticSharedMemory INTEGER, dynamicSharedMemory INTEGER, graphNodeId INTEGER,
  graphId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER, srcKind INTEGER, dstKind INTEGER,
  srcDeviceId INTEGER, srcContextId INTEGER, dstDeviceId INTEGER, dstContextId INTEGER, migrationCause INTEGER,
  graphNodeId INTEGER, virtualAddress INTEGER, copyCount INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  value INTEGER, bytes INTEGER, graphNodeId INTEGER, memKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
  globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,
  category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER,
  domainId INTEGER, uint64Value INTEGER, int64Value INTEGER, doubleValue REAL, uint32Value INTEGER,
  int32Value INTEGER, floatValue REAL, jsonTextId INTEGER, jsonText TEXT);
""")
db.executemany("INSERT INTO ENUM_CUDA_MEM_KIND VALUES (?, ?, ?)", [
    (0, "CUDA_MEMOPR_MEMORY_KIND_PAGEABLE", "Pageable"), (1, "CUDA_MEMOPR_MEMORY_KIND_PINNED", "Pinned"),
    (2, "CUDA_MEMOPR_MEMORY_KIND_DEVICE", "Device"), (3, "CUDA_MEMOPR_MEMORY_KIND_ARRAY", "Array"),
    (4, "CUDA_MEMOPR_MEMORY_KIND_MANAGED", "Managed"), (5, "CUDA_MEMOPR_MEMORY_KIND_DEVICE_STATIC", "Device Static"),
    (6, "CUDA_MEMOPR_MEMORY_KIND_MANAGED_STATIC", "Managed Static"), (7, "CUDA_MEMOPR_MEMORY_KIND_UNKNOWN", "Unknown")])
db.executemany("INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES (?, ?, ?)", [
    (0, "CUDA_MEMCPY_OPER_UNKNOWN", "Unknown"), (1, "CUDA_MEMCPY_OPER_HTOD", "Host-to-Device"),
    (2, "CUDA_MEMCPY_OPER_DTOH", "Device-to-Host"), (8, "CUDA_MEMCPY_OPER_DTOD", "Device-to-Device")])
db.executemany("INSERT INTO META_DATA_EXPORT VALUES (?, ?)", [("EXPORT_SCHEMA_VERSION", "3.25.0")])
db.execute("INSERT INTO TARGET_INFO_GPU (vmId, id, name, smCount, computeMajor, computeMinor) VALUES (0, 0, 'NVIDIA H100 80GB HBM3', 132, 9, 0)")
strings = {}
def sid(text):
    if text not in strings:
        strings[text] = len(strings) + 1
        db.execute("INSERT INTO StringIds VALUES (?, ?)", (strings[text], text))
    return strings[text]
version = {"cudaLaunchKernel": "_v7000", "cudaMemcpyAsync": "_v3020", "cudaStreamSynchronize": "_v3020",
           "cudaDeviceGetAttribute": "_v5000"}
kind = {"Pageable": 0, "Pinned": 1, "Device": 2}
tid = (717 << 24) | 100  # globalTid: pid 717, tid 100
ns = lambda us: int(round(us * 1000))
for e in events:
    if e.get("ph") != "X":
        continue
    cat, a = e.get("cat"), e.get("args", {})
    start, end = ns(e["ts"]), ns(e["ts"] + e["dur"])
    if cat == "kernel":
        name = sid(e["name"])
        gx, gy, gz = a.get("grid", [None, None, None])
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, correlationId,"
                   " globalPid, demangledName, shortName, gridX, gridY, gridZ) VALUES (?, ?, 0, 1, ?, ?, ?, ?, ?, ?, ?, ?)",
                   (start, end, a["stream"], a["correlation"], 717 << 24, name, sid(e["name"].split("(")[0].split()[-1]),
                    gx, gy, gz))
    elif cat == "gpu_memcpy":
        src, dst = e["name"].split("(")[1].rstrip(")").split(" -> ")
        oper = 1 if "HtoD" in e["name"] else 2
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, contextId, streamId, correlationId,"
                   " globalPid, bytes, copyKind, srcKind, dstKind) VALUES (?, ?, 0, 1, ?, ?, ?, ?, ?, ?, ?)",
                   (start, end, a["stream"], a["correlation"], 717 << 24, a["bytes"], oper, kind[src], kind[dst]))
    elif cat == "cuda_runtime":
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 0, ?, ?, ?, 0, NULL)",
                   (start, end, tid, a.get("correlation", 0), sid(e["name"] + version.get(e["name"], ""))))
    elif cat in ("cpu_op", "user_annotation"):
        db.execute("INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid) VALUES (?, ?, 59, ?, ?)",
                   (start, end, e["name"], tid))
db.commit()
db.execute("VACUUM")
db.close()
