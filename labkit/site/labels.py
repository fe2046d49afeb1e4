"""Interface words: the site's widgets (French, Chinese) and the lab tables (those two and English,
for the terminal). A missing word fails loudly, naming the language and the key.
"""

from __future__ import annotations

#: Each language of the site: its name in the switcher and where it lives in the built site.
LANGUAGES: dict[str, dict[str, str]] = {
    "fr": {"name": "Français", "root": ""},
    "zh": {"name": "中文", "root": "zh/"},
}

_WIDGETS = {
    "quiz": ("Self-check", "Auto-évaluation", "自测"),
    "answer": ("Answer and explanation", "Réponse et explication", "答案与解析"),
    "right_option": ("Right answer", "Bonne réponse", "正确答案"),
    "expected": ("Expected value", "Valeur attendue", "期望值"),
    "right": ("Right!", "Juste !", "答对了！"),
    "wrong": ("Not quite: read the explanation.", "Pas tout à fait : relisez l'explication.", "不对，请看解析。"),
    "check": ("Check", "Vérifier", "检查"),
    "lab.recorded_on": ("Recorded on", "Mesuré sur", "测量于"),
    "lab.no_results": ("No results recorded yet: run", "Aucun résultat enregistré pour l'instant : lancez",
                       "尚无记录的结果：请运行"),
    "lab.timeline_caption": ("Timeline of the first iterations (CUDA events around the NVTX phases)",
                             "Chronologie des premières itérations (événements CUDA autour des phases NVTX)",
                             "前几次迭代的时间线（NVTX 阶段两端的 CUDA event）"),
}

_TABLES = {
    "table.lab04.timer": ("The instrument first: the timer against cupyx, and the L2 effect (rule 5)",
                          "D'abord l'instrument : le chronomètre face à cupyx, et l'effet du L2 (règle 5)",
                          "先检验工具：计时器对比 cupyx，以及 L2 效应（第 5 条规则）"),
    "table.lab04.totals": ("Whole program: time per iteration (host clock, median of runs)",
                           "Programme entier : temps par itération (horloge hôte, médiane des exécutions)",
                           "整个程序：每次迭代耗时（主机时钟，多次运行的中位数）"),
    "table.lab04.phases": ("Step 1, chronometer: each phase alone (GPU time, median of 30)",
                           "Étape 1, chronomètre : chaque phase seule (temps GPU, médiane de 30)",
                           "第 1 步，计时：单独测量每个阶段（GPU 时间，30 次的中位数）"),
    "table.lab04.ablation": ("What each fault costs: time saved by repairing it alone",
                             "Ce que coûte chaque défaut : temps gagné en le réparant seul",
                             "每个缺陷的代价：只修复它一个所节省的时间"),
    "table.lab04.timeline": ("Step 2, timeline: is the GPU busy? (each phase's span on the GPU clock, against "
                             "its GPU work measured alone in step 1)",
                             "Étape 2, chronologie : le GPU travaille-t-il ? (durée de chaque phase sur l'horloge "
                             "du GPU, face à son travail GPU mesuré seul à l'étape 1)",
                             "第 2 步，时间线：GPU 在忙吗？（每个阶段在 GPU 时钟上的跨度，对比第 1 步单独测得的 GPU "
                             "工作时间）"),
    "table.lab04.ncu": ("Step 3, Nsight Compute on the kernels",
                        "Étape 3, Nsight Compute sur les noyaux",
                        "第 3 步，用 Nsight Compute 看各个 kernel"),
    "table.lab04.sass": ("Step 4, SASS: what the compiler produced",
                         "Étape 4, SASS : ce que le compilateur a produit",
                         "第 4 步，SASS：编译器生成了什么"),
}

_COLUMNS = {
    "column.version": ("version", "version", "版本"),
    "column.ms_per_iteration": ("ms / iteration", "ms / itération", "毫秒 / 迭代"),
    "column.min": ("min (ms)", "min (ms)", "最小（毫秒）"),
    "column.max": ("max (ms)", "max (ms)", "最大（毫秒）"),
    "column.phase": ("phase", "phase", "阶段"),
    "column.faulty_ms": ("faulty (ms)", "fautif (ms)", "有缺陷（毫秒）"),
    "column.repaired_ms": ("repaired (ms)", "réparé (ms)", "修复后（毫秒）"),
    "column.gain": ("gain", "gain", "加速"),
    "column.faulty_gbps": ("faulty (GB/s)", "fautif (Go/s)", "有缺陷（GB/s）"),
    "column.repaired_gbps": ("repaired (GB/s)", "réparé (Go/s)", "修复后（GB/s）"),
    "column.fault": ("fault", "défaut", "缺陷"),
    "column.saved_ms": ("saved (ms / iteration)", "gagné (ms / itération)", "节省（毫秒 / 迭代）"),
    "column.saved_share": ("share of the faulty time", "part du temps fautif", "占有缺陷版本时间的比例"),
    "column.busy": ("GPU busy", "GPU occupé", "GPU 忙碌"),
    "column.kernel": ("kernel", "noyau", "kernel"),
    "column.duration_us": ("duration (µs)", "durée (µs)", "时长（微秒）"),
    "column.compute_pct": ("Compute (SM)", "Compute (SM)", "Compute (SM)"),
    "column.memory_pct": ("Memory", "Memory", "Memory"),
    "column.quadrant": ("diagnosis", "diagnostic", "诊断"),
    "column.sectors_ld": ("sectors / load request", "secteurs / requête de lecture", "sector / 读请求"),
    "column.sectors_st": ("sectors / store request", "secteurs / requête d'écriture", "sector / 写请求"),
    "column.measurement": ("measurement", "mesure", "测量"),
    "column.median_us": ("median (µs)", "médiane (µs)", "中位数（微秒）"),
    "column.apparent_gbps": ("apparent bandwidth (GB/s)", "bande passante apparente (Go/s)", "表观带宽（GB/s）"),
    "column.of_hbm_peak": ("of the HBM peak", "du pic HBM", "占 HBM 峰值"),
    "column.vs_repaired": ("× repaired", "× réparé", "× 修复后"),
    "column.span_ms": ("phase span (ms / iteration)", "durée de la phase (ms / itération)", "阶段跨度（毫秒 / 迭代）"),
    "column.work_ms": ("GPU work alone (ms)", "travail GPU seul (ms)", "单独的 GPU 工作（毫秒）"),
    "column.dram_mb": ("DRAM (MB)", "DRAM (Mo)", "DRAM（MB）"),
    "column.top_stall": ("main stall", "blocage principal", "主要 stall"),
    "column.remedy": ("remedy (decision tree)", "remède (arbre de décision)", "对策（决策树）"),
    "column.top_rule": ("top rule", "règle en tête", "首要规则"),
    "column.speedup_pct": ("Est. Speedup", "Est. Speedup", "Est. Speedup"),
    "column.global_loads": ("global loads", "chargements globaux", "全局加载指令"),
    "column.wide_loads": ("LDG.E.128?", "LDG.E.128 ?", "LDG.E.128？"),
    "column.spills": ("spills (LDL/STL)?", "spilling (LDL/STL) ?", "溢出（LDL/STL）？"),
    "column.ffma": ("FFMA", "FFMA", "FFMA"),
}

_VALUES = {
    "value.faulty": ("faulty", "fautif", "有缺陷"),
    "value.repaired": ("repaired", "réparé", "修复后"),
    "value.speedup": ("speed-up (faulty / repaired)", "accélération (fautif / réparé)", "加速比（有缺陷 / 修复后）"),
    "value.transfer": ("transfer", "transfert", "传输"),
    "value.normalise": ("normalise", "normalisation", "归一化"),
    "value.layer": ("layer (transpose)", "couche (transposée)", "层（转置）"),
    "value.loss": ("loss", "perte", "loss"),
    "value.idle": ("(GPU idle between phases)", "(GPU inactif entre les phases)", "（阶段之间 GPU 空闲）"),
    "value.pageable_transfer": ("pageable memory, copy not overlapped", "mémoire paginable, copie non recouverte",
                                "可分页内存，拷贝未重叠"),
    "value.tiny_kernels": ("one tiny kernel per step", "un petit noyau par étape", "每一步一个小 kernel"),
    "value.uncoalesced": ("uncoalesced writes", "écritures non coalescées", "非合并写入"),
    "value.host_sync": ("host sync every iteration (.item())", "synchro hôte à chaque itération (.item())",
                        "每次迭代都同步主机（.item()）"),
    "value.memory-bound": ("memory-bound", "limité par la mémoire", "memory-bound"),
    "value.compute-bound": ("compute-bound", "limité par le calcul", "compute-bound"),
    "value.latency-bound": ("latency-bound", "limité par la latence", "latency-bound（延迟受限）"),
    "value.balanced": ("balanced", "équilibré", "均衡"),
    "value.hide-memory-latency": ("hide memory latency: occupancy, coalescing, fewer accesses",
                                  "masquer la latence mémoire : occupancy, coalescence, moins d'accès",
                                  "隐藏访存延迟：提高 occupancy、合并访存、减少访问"),
    "value.fewer-wider-accesses": ("fewer, wider accesses; fix bank conflicts",
                                   "des accès moins nombreux et plus larges ; corriger les conflits de banc",
                                   "更少、更宽的访问；消除 bank conflict"),
    "value.fewer-syncs-balance-work": ("fewer __syncthreads(), balanced work",
                                       "moins de __syncthreads(), travail équilibré",
                                       "减少 __syncthreads()，均衡负载"),
    "value.compute-bound-good": ("compute-bound: good news", "limité par le calcul : bonne nouvelle",
                                 "compute-bound：这是好事"),
    "value.enough-warps": ("plenty of warps: nothing to fix", "assez de warps : rien à corriger",
                           "warp 充足：无需处理"),
    "value.shared-mufu-latency": ("shared-memory or MUFU latency: bank conflicts, fewer transcendentals",
                                  "latence mémoire partagée ou MUFU : conflits de banc, moins de fonctions spéciales",
                                  "shared memory 或 MUFU 延迟：消除 bank conflict，少用超越函数"),
    "value.more-ilp": ("dependent instructions: more independent work per thread (ILP)",
                       "instructions dépendantes : plus de travail indépendant par thread (ILP)",
                       "指令相互依赖：给每个线程更多独立工作（ILP）"),
    "value.coalesce-stores": ("stores draining at exit: coalesce the final stores",
                              "écritures en vidange à la sortie : coalescer les dernières écritures",
                              "退出时等待写回：让最后的写入合并"),
    "value.l2_once_warm": ("20 MB read once, L2 not flushed", "20 Mo lus une fois, L2 non vidé",
                           "20 MB 读一遍，不清空 L2"),
    "value.l2_once_flushed": ("20 MB read once, L2 flushed", "20 Mo lus une fois, L2 vidé", "20 MB 读一遍，清空 L2"),
    "value.l2_passes_warm": ("20 MB read 8 times in one launch", "20 Mo lus 8 fois dans un lancement",
                             "一次启动内把 20 MB 读 8 遍"),
    "value.hbm_passes": ("400 MB read 8 times in one launch (bigger than L2)",
                         "400 Mo lus 8 fois dans un lancement (plus grand que le L2)",
                         "一次启动内把 400 MB 读 8 遍（大于 L2）"),
    "value.labkit_copy": ("cupy.copyto of 1 GiB, labkit's timer", "cupy.copyto de 1 Gio, chronomètre labkit",
                          "cupy.copyto 1 GiB，labkit 计时器"),
    "value.cupyx_copy": ("the same, cupyx.profiler.benchmark", "la même, cupyx.profiler.benchmark",
                         "同上，cupyx.profiler.benchmark"),
    "value.yes": ("yes", "oui", "是"),
    "value.no": ("no", "non", "否"),
}

LABELS: dict[str, dict[str, str]] = {
    lang: {key: words[index] for table in (_WIDGETS, _TABLES, _COLUMNS, _VALUES) for key, words in table.items()}
    for index, lang in enumerate(("en", "fr", "zh"))
}


def label(lang: str, key: str) -> str:
    try:
        return LABELS[lang][key]
    except KeyError:
        raise KeyError(f"no '{key}' label for language '{lang}': add it to labkit/site/labels.py") from None
