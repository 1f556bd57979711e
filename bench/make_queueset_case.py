#!/usr/bin/env python3
"""Writes one `apfsim model queueset` case of the workload-low shape to stdout.

The case the README's Performance section measures `apfsim model queueset` on: concurrency
limit 245, 128 queues, hand size 6, queue length limit 50, 200 flows, Poisson arrivals at
2,000 per second, 90% one-seat requests of 20 ms and 10% ten-seat requests of 80 ms mean
exponential service, a 15 s wait limit. Deterministic: the seed is fixed.

usage: bench/make_queueset_case.py [REQUESTS] > case.json   (default 1,000,000)
"""
import random
import sys


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    rng = random.Random(18)
    out = sys.stdout
    out.write('[{"queueset": {"concurrencyLimit": 245, "queues": 128, "handSize": 6, '
              '"queueLengthLimit": 50},\n"requests": [')
    t = 0.0
    lines = []
    for i in range(n):
        t += rng.expovariate(2000.0)
        flow = rng.randrange(200)
        if rng.random() < 0.9:
            seats, service = 1, rng.expovariate(1 / 0.020)
        else:
            seats, service = 10, rng.expovariate(1 / 0.080)
        seat_field = '' if seats == 1 else '"initialSeats":10,'
        lines.append('{"id":%d,"arrive":%.6f,"flowSchema":"s","distinguisher":"f%d",%s'
                     '"service":%.6f,"waitLimit":15}' % (i, t, flow, seat_field, service))
        if len(lines) == 10000:
            out.write(('' if i < 10000 else ',\n') + ',\n'.join(lines))
            lines = []
    if lines:
        out.write(('' if n <= len(lines) else ',\n') + ',\n'.join(lines))
    out.write(']}]\n')


if __name__ == '__main__':
    main()
