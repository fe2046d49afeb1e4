"""Chapter 4's reading of an Nsight Compute report: quadrants, units, findings, the stall tree's
remedies. (en, fr, zh)"""

WORDS = {
    # Speed of Light quadrants (compute vs memory throughput, 60 % threshold)
    'value.memory-bound': ('memory-bound', 'limité par la mémoire', 'memory-bound'),
    'value.compute-bound': ('compute-bound', 'limité par le calcul', 'compute-bound'),
    'value.latency-bound': ('latency-bound', 'limité par la latence', 'latency-bound（延迟受限）'),
    'value.balanced': ('balanced', 'équilibré', '均衡'),
    # the busiest unit (labkit.profiling.units)
    'value.unit.dram': ('DRAM', 'DRAM', 'DRAM'),
    'value.unit.l2': ('L2', 'L2', 'L2'),
    'value.unit.l1': ('L1/TEX', 'L1/TEX', 'L1/TEX'),
    'value.unit.lsu_wavefronts': ('L1 data stage (wavefronts)', 'étage de données L1 (wavefronts)',
                                  'L1 数据级（wavefront）'),
    'value.unit.shared_wavefronts': ('shared memory (wavefronts)', 'mémoire partagée (wavefronts)',
                                     'shared memory（wavefront）'),
    'value.instruction-bound': ('instruction-bound (not arithmetic)', 'limité par les instructions (pas le calcul)',
                                '指令受限（并非算术）'),
    'value.unit.pipe_lsu': ('LSU pipe (load/store)', 'pipe LSU (chargements/écritures)', 'LSU 管线（访存指令）'),
    'value.unit.issue': ('instruction issue', "émission d'instructions", '指令发射'),
    'value.unit.pipe_alu': ('ALU pipe (integer, logic)', 'pipe ALU (entiers, logique)', 'ALU 管线（整数、逻辑）'),
    'value.unit.pipe_uniform': ('uniform pipe', 'pipe uniforme', 'uniform 管线'),
    'value.unit.pipe_adu': ('ADU pipe (address, branch)', 'pipe ADU (adresses, branchements)', 'ADU 管线（地址、分支）'),
    'value.unit.pipe_cbu': ('CBU pipe (control flow)', 'pipe CBU (contrôle)', 'CBU 管线（控制流）'),
    'value.unit.pipe_fma': ('FMA pipe (FP32, IMAD)', 'pipe FMA (FP32, IMAD)', 'FMA 管线（FP32、IMAD）'),
    'value.unit.pipe_fp64': ('FP64 pipe', 'pipe FP64', 'FP64 管线'),
    'value.unit.pipe_tensor': ('tensor pipe', 'pipe tensor', 'tensor 管线'),
    'value.unit.pipe_xu': ('XU pipe (special functions)', 'pipe XU (fonctions spéciales)', 'XU 管线（特殊函数）'),
    # the decision tree's findings (labkit.profiling.diagnosis.Finding) and what to do
    'value.grid-too-small': (
        'grid smaller than the GPU: more work per launch, fuse; CUDA Graphs for chains of small kernels',
        'grille plus petite que le GPU : plus de travail par lancement, fusionner ; CUDA Graphs pour les chaînes de petits noyaux',
        'grid 小于 GPU：每次启动做更多工作、融合；小 kernel 链用 CUDA Graphs',
    ),
    'value.launch-bound': (
        'launch-bound (a few µs): fuse, batch work, CUDA Graphs',
        'limité par le lancement (quelques µs) : fusionner, regrouper, CUDA Graphs',
        '受启动开销限制（几微秒）：融合、批量处理、CUDA Graphs',
    ),
    'value.dram-bound': (
        'at the DRAM roof: move fewer bytes (fusion, smaller types, reuse)',
        'au toit de la DRAM : déplacer moins d\'octets (fusion, types plus petits, réutilisation)',
        '已到 DRAM 屋顶：少搬数据（融合、更小的数据类型、复用）',
    ),
    'value.onchip-bound': (
        'on-chip memory traffic: coalesce, wider accesses, fix bank conflicts',
        'trafic mémoire sur la puce : coalescer, accès plus larges, supprimer les conflits de banc',
        '片上访存流量：合并访存、更宽的访问、消除 bank 冲突',
    ),
    'value.issue-bound': (
        'too many instructions: simplify index arithmetic, more work per instruction',
        "trop d'instructions : simplifier le calcul d'indices, plus de travail par instruction",
        '指令过多：简化索引计算，每条指令做更多工作',
    ),
    'value.arithmetic-bound': (
        'an arithmetic pipe is full: check whose instructions fill it (source counters)',
        "un pipe arithmétique est plein : voir quelles instructions le remplissent (Source Counters)",
        '某个算术管线已满：用 Source Counters 看是哪些指令占满了它',
    ),
    # the stall tree's remedies (labkit.profiling.diagnosis.REMEDIES)
    'value.hide-memory-latency': (
        'memory latency exposed: more loads in flight (ILP, occupancy), coalesce, fewer accesses',
        "latence mémoire exposée : plus de chargements en vol (ILP, occupancy), coalescer, moins d'accès",
        '访存延迟暴露：让更多加载同时在途（ILP、占用率）、合并访存、减少访问',
    ),
    'value.mio-results': (
        'waiting on shared memory or special functions: bank conflicts, fewer transcendentals',
        "attente de la mémoire partagée ou des fonctions spéciales : conflits de banc, moins de transcendantes",
        '等待 shared memory 或特殊函数结果：消除 bank 冲突、少用超越函数',
    ),
    'value.mio-queue': (
        'MIO queue full (shared memory, special functions): fewer, conflict-free shared accesses',
        'file MIO pleine (mémoire partagée, fonctions spéciales) : moins d\'accès partagés, sans conflit',
        'MIO 队列已满（shared memory、特殊函数）：减少 shared 访问并消除冲突',
    ),
    'value.lg-queue': (
        'local/global memory queue full: fewer, wider global accesses; less local memory',
        'file mémoire locale/globale pleine : accès globaux moins nombreux et plus larges, moins de mémoire locale',
        'local/global 访存队列已满：更少、更宽的全局访问，减少 local memory',
    ),
    'value.fewer-syncs-balance-work': (
        'fewer __syncthreads(), balanced work',
        'moins de __syncthreads(), travail équilibré',
        '减少 __syncthreads()，均衡负载',
    ),
    'value.busiest-pipe': (
        'a pipe is saturated: which one, and by whose instructions (math or indices)?',
        "un pipe est saturé : lequel, et par quelles instructions (calcul ou indices) ?",
        '某条管线饱和：是哪条？被哪些指令占满（计算还是索引）？',
    ),
    'value.enough-warps': (
        'enough warps, possibly more than needed',
        'assez de warps, peut-être plus que nécessaire',
        'warp 充足，甚至可能多于所需',
    ),
    'value.more-ilp': (
        'dependent instructions: more independent work per thread (ILP)',
        'instructions dépendantes : plus de travail indépendant par thread (ILP)',
        '指令相互依赖：给每个线程更多独立工作（ILP）',
    ),
    'value.coalesce-stores': (
        'stores draining at exit: coalesce the final stores',
        'écritures en vidange à la sortie : coalescer les dernières écritures',
        '退出时等待写回：让最后的写入合并',
    ),
}
