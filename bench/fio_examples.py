#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Makes one of fio's examples runnable here, for fio and ioreel alike (bench/fio_examples.sh):
every job on DEV (its own filename=/directory= lines dropped), a write_iolog per job, at most
IOS I/Os per job and RUNTIME seconds, one clone per job (fio writes the clones' logs into one
file), and engines this fio lacks replaced by one of the same kind (sync or async), so that both
tools read the very same modified job file.
    fio_examples.py EXAMPLE.fio OUT.fio DEV LOGDIR IOS RUNTIME"""
import re
import sys

SYNC = {'dev-dax', 'libpmem', 'mtd', 'ime_psync', 'ime_psyncv', 'libhdfs', 'libcufile',
        'libhipfile', 'gfapi', 'libzbc'}
ASYNC = {'libblkio', 'nbd', 'rbd', 'io_uring_cmd', 'xnvme', 'ime_aio', 'dfs', 'nfs', 'libiscsi',
         'gfapi_async', 'cpp_null', 'spdk'}
DROP = ('filename', 'directory', 'filename_format', 'write_iolog', 'cmd_type', 'libblkio_driver',
        'libblkio_path', 'uri', 'pool', 'cont', 'rbdname', 'clientname', 'nfs_url', 'fdp',
        'fdp_pli', 'pi_act', 'pi_chk', 'apptag', 'apptag_mask', 'md_per_io_size', 'cuda_io',
        'rocm_io', 'gpu_dev_ids', 'gpu_dev_id', 'skip_bad', 'atomic', 'sqthread_poll',
        'sqthread_poll_cpu', 'registerfiles', 'nonvectored', 'readfua', 'writefua',
        'group_reporting', 'write_bw_log', 'write_lat_log', 'write_iops_log', 'write_hist_log')


def main():
    src, out, dev, logs, ios, runtime = sys.argv[1:7]
    # a runtime bounds the jobs bounded by nothing else (rated ones at a few I/Os a second)
    lines = [f'; generated from {src} by bench/fio_examples.py', '[global]',
             f'filename={dev}', f'number_ios={ios}', f'runtime={20 * int(runtime)}', '']
    for raw in open(src):
        line = raw.rstrip('\n')
        text = re.split('[;#]', line, 1)[0].strip()
        m = re.match(r'\[(.+)\]$', text)
        if m:
            lines.append(line)
            if not m.group(1).startswith('global'):
                lines.append(f'write_iolog={logs}/{m.group(1)}.log')
            continue
        key = text.split('=', 1)[0].strip()
        val = text.split('=', 1)[1].strip() if '=' in text else ''
        if key in DROP:
            continue
        if key == 'ioengine' and (val in SYNC or val in ASYNC):
            line = 'ioengine=' + ('psync' if val in SYNC else 'libaio')
        if key == 'numjobs':
            # fio writes the clones of a job into one write_iolog, interleaved: one clone
            line = '; ' + line + '  (one clone: fio would interleave their logs)\nnumjobs=1'
        if key in ('runtime', 'timeout'):
            secs = int(re.match(r'\d+', val).group()) * (60 if val.endswith('m') else 1)
            line = f'{key}={min(secs, int(runtime))}'
        lines.append(line)
    open(out, 'w').write('\n'.join(lines) + '\n')


if __name__ == '__main__':
    main()
