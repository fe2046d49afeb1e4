"""Chapter 4's reading of an Nsight Compute report: quadrants and the stall tree's remedies. (en, fr, zh)"""

WORDS = {
    'value.memory-bound': ('memory-bound', 'limité par la mémoire', 'memory-bound'),
    'value.compute-bound': ('compute-bound', 'limité par le calcul', 'compute-bound'),
    'value.latency-bound': ('latency-bound', 'limité par la latence', 'latency-bound（延迟受限）'),
    'value.balanced': ('balanced', 'équilibré', '均衡'),
    'value.hide-memory-latency': (
        'hide memory latency: occupancy, coalescing, fewer accesses',
        "masquer la latence mémoire : occupancy, coalescence, moins d'accès",
        '隐藏访存延迟：提高 occupancy、合并访存、减少访问',
    ),
    'value.fewer-wider-accesses': (
        'fewer, wider accesses; fix bank conflicts',
        'des accès moins nombreux et plus larges ; corriger les conflits de banc',
        '更少、更宽的访问；消除 bank conflict',
    ),
    'value.fewer-syncs-balance-work': (
        'fewer __syncthreads(), balanced work',
        'moins de __syncthreads(), travail équilibré',
        '减少 __syncthreads()，均衡负载',
    ),
    'value.compute-bound-good': (
        'compute-bound: good news',
        'limité par le calcul : bonne nouvelle',
        'compute-bound：这是好事',
    ),
    'value.enough-warps': ('plenty of warps: nothing to fix', 'assez de warps : rien à corriger', 'warp 充足：无需处理'),
    'value.shared-mufu-latency': (
        'shared-memory or MUFU latency: bank conflicts, fewer transcendentals',
        'latence mémoire partagée ou MUFU : conflits de banc, moins de fonctions spéciales',
        'shared memory 或 MUFU 延迟：消除 bank conflict，少用超越函数',
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
