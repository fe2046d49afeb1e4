"""Chapter 5's checklist (labkit.profiling.checklist) and `labkit diagnose`'s words. (en, fr, zh)

Placeholders in braces are filled by labkit.report.diagnosis_text: thresholds from
labkit.profiling.checklist.THRESHOLDS, evidence from the report (a name ending in _pct is a
percentage, _us microseconds, _x a ratio, _mb megabytes).
"""

WORDS = {
    # ----- the five levels ------------------------------------------------------------------------
    'level.1': ('On paper', 'Sur papier', '纸上估算'),
    'level.2': ('Is the GPU busy?', 'Le GPU travaille-t-il ?', 'GPU 在忙吗？'),
    'level.3': ('Bytes moved', 'Octets déplacés', '搬运的字节'),
    'level.4': ('On the chip', 'Sur la puce', '片上'),
    'level.5': ('Instructions', 'Instructions', '指令层面'),
    # ----- the items: title, symptom, lever -----------------------------------------------------
    'checklist.roofline.title': ('Estimate on paper: t_min and t_real / t_min',
                                 'Estimer sur papier : t_min et t_réel / t_min',
                                 '先在纸上估算：t_min 与 t_real / t_min'),
    'checklist.roofline.symptom': ('t_real / t_min above {stop_below}: there is room; under it, stop',
                                   't_réel / t_min au-dessus de {stop_below} : il reste de la marge ; en dessous, arrêtez',
                                   't_real / t_min 高于 {stop_below}：还有提升空间；低于它就停手'),
    'checklist.roofline.lever': ('count bytes and FLOPs, compute the intensity and t_min, measure, compare',
                                 "compter octets et FLOP, calculer l'intensité et t_min, mesurer, comparer",
                                 '数清字节与 FLOP，算出算术强度和 t_min，测量并比较'),
    'checklist.idle-gpu.title': ('Is the GPU busy? Gaps, synchronisations, transfers',
                                 'Le GPU travaille-t-il ? Trous, synchronisations, transferts',
                                 'GPU 在忙吗？空隙、同步、传输'),
    'checklist.idle-gpu.symptom': ('gaps between kernels on the timeline (nsys); .item() or cudaDeviceSynchronize '
                                   'in the loop; copies that do not overlap the kernels',
                                   'des trous entre les noyaux sur la chronologie (nsys) ; .item() ou '
                                   'cudaDeviceSynchronize dans la boucle ; des copies qui ne recouvrent pas les noyaux',
                                   '时间线（nsys）上 kernel 之间有空隙；循环里有 .item() 或 cudaDeviceSynchronize；'
                                   '拷贝没有与 kernel 重叠'),
    'checklist.idle-gpu.lever': ('keep data on the GPU, remove host synchronisations, pinned memory and a second '
                                 'stream to overlap copies',
                                 'garder les données sur le GPU, supprimer les synchronisations avec l\'hôte, mémoire '
                                 'épinglée et second flux pour recouvrir les copies',
                                 '数据留在 GPU 上，去掉与主机的同步，用锁页内存和第二个 stream 让拷贝与计算重叠'),
    'checklist.launch.title': ('Launch overhead and grids too small', 'Coût de lancement et grilles trop petites',
                               '启动开销与过小的 grid'),
    'checklist.launch.symptom': ('fewer blocks than SMs, or a kernel shorter than {launch_us}',
                                 'moins de blocs que de SM, ou un noyau de moins de {launch_us}',
                                 'block 少于 SM，或 kernel 时长不到 {launch_us}'),
    'checklist.launch.lever': ('more work per launch: fuse kernels, batch calls, CUDA Graphs for chains of small '
                               'kernels',
                               'plus de travail par lancement : fusionner les noyaux, regrouper les appels, CUDA '
                               'Graphs pour les chaînes de petits noyaux',
                               '每次启动做更多工作：融合 kernel、合并调用，小 kernel 链用 CUDA Graphs'),
    'checklist.coalescing.title': ('Coalescing: the bytes used in each sector', 'Coalescence : les octets utiles de '
                                   'chaque secteur', '合并访存：每个 sector 里用到的字节'),
    'checklist.coalescing.symptom': ('fewer than 32 of the 32 bytes of each sector used (sectors per request above '
                                     'the ideal); ncu rule UncoalescedGlobalAccess',
                                     'moins de 32 des 32 octets de chaque secteur utilisés (secteurs par requête '
                                     "au-dessus de l'idéal) ; règle UncoalescedGlobalAccess de ncu",
                                     '每个 sector 的 32 字节没有全部用上（每请求的 sector 数高于理想值）；'
                                     'ncu 规则 UncoalescedGlobalAccess'),
    'checklist.coalescing.lever': ('neighbouring threads on neighbouring addresses: swap the index mapping, go '
                                   'through shared memory in tiles, structures of arrays',
                                   "threads voisins sur des adresses voisines : inverser l'indexation, passer par la "
                                   'mémoire partagée en tuiles, structures de tableaux',
                                   '相邻线程访问相邻地址：调换索引映射，经 shared memory 分块中转，改用数组结构（SoA）'),
    'checklist.local-memory.title': ('Local memory: spills and dynamically indexed arrays',
                                     'Mémoire locale : débordements et tableaux à indice dynamique',
                                     'local memory：寄存器溢出与动态下标数组'),
    'checklist.local-memory.symptom': ('local-memory traffic (l1tex__t_sectors_pipe_lsu_mem_local_op_ld/st), '
                                       'LDL/STL in the SASS',
                                       'du trafic en mémoire locale (l1tex__t_sectors_pipe_lsu_mem_local_op_ld/st), '
                                       'des LDL/STL dans le SASS',
                                       '有 local memory 流量（l1tex__t_sectors_pipe_lsu_mem_local_op_ld/st），'
                                       'SASS 中有 LDL/STL'),
    'checklist.local-memory.lever': ('indices known at compile time (unrolled loops), shared memory for per-thread '
                                     'tables, fewer values live at once',
                                     'des indices connus à la compilation (boucles déroulées), la mémoire partagée '
                                     'pour les tables propres à chaque thread, moins de valeurs vivantes à la fois',
                                     '让下标在编译期确定（展开循环），每个线程自己的表放进 shared memory，'
                                     '减少同时存活的值'),
    'checklist.l2-locality.title': ('Locality in L2: the order of the blocks', "Localité dans le L2 : l'ordre des blocs",
                                    'L2 中的局部性：block 的执行顺序'),
    'checklist.l2-locality.symptom': ('DRAM busy and read well beyond the bytes the algorithm must read '
                                      '(dram__bytes_read.sum against the count on paper), a low L2 hit rate '
                                      '(lts__t_sector_hit_rate)',
                                      "la DRAM chargée et lue bien au-delà des octets que l'algorithme doit lire "
                                      '(dram__bytes_read.sum face au compte sur papier), un taux de succès du L2 '
                                      'bas (lts__t_sector_hit_rate)',
                                      'DRAM 很忙，读取量远超算法至少要读的字节（dram__bytes_read.sum 对比纸上算出的量），'
                                      'L2 命中率低（lts__t_sector_hit_rate）'),
    'checklist.l2-locality.lever': ('order the blocks so that those running together share their inputs: grouped '
                                    'rasterisation (GROUP_M), a swizzled block index, larger tiles',
                                    'ordonner les blocs pour que ceux qui tournent ensemble partagent leurs entrées : '
                                    'parcours par groupes de lignes (GROUP_M), indice de bloc permuté, tuiles plus '
                                    'grandes',
                                    '调整 block 的顺序，让同时运行的 block 共享输入：按行分组遍历（GROUP_M）、'
                                    '重排 block 下标、更大的 tile'),
    'checklist.fewer-bytes.title': ('Fewer bytes: fusion, smaller types, reuse',
                                    "Moins d'octets : fusion, types plus petits, réutilisation",
                                    '更少的字节：融合、更小的类型、复用'),
    'checklist.fewer-bytes.symptom': ('DRAM at its roof (t_real / t_min under {stop_below}), and the kernel still '
                                      'too slow for the application',
                                      "la DRAM à son plafond (t_réel / t_min sous {stop_below}), et le noyau encore "
                                      "trop lent pour l'application",
                                      'DRAM 已到屋顶（t_real / t_min 低于 {stop_below}），对应用来说 kernel 仍然太慢'),
    'checklist.fewer-bytes.lever': ('change the work, not the code: fuse with the neighbouring kernels, FP16, BF16 '
                                    'or INT8 data, tiles that reuse what they load',
                                    'changer le travail, pas le code : fusionner avec les noyaux voisins, données '
                                    'FP16, BF16 ou INT8, tuiles qui réutilisent ce qu\'elles chargent',
                                    '改变工作量而不是改代码：与相邻 kernel 融合，使用 FP16、BF16 或 INT8 数据，'
                                    '用分块复用已加载的数据'),
    'checklist.bank-conflicts.title': ('Shared-memory bank conflicts', 'Conflits de banc en mémoire partagée',
                                       'shared memory 的 bank 冲突'),
    'checklist.bank-conflicts.symptom': ('more shared-memory wavefronts than the ideal (memory_l1_wavefronts_shared '
                                         'against its _ideal); ncu rule UncoalescedSharedAccess',
                                         'plus de wavefronts de mémoire partagée que l\'idéal '
                                         '(memory_l1_wavefronts_shared face à son _ideal) ; règle '
                                         'UncoalescedSharedAccess de ncu',
                                         'shared memory 的 wavefront 多于理想值（memory_l1_wavefronts_shared '
                                         '对比其 _ideal）；ncu 规则 UncoalescedSharedAccess'),
    'checklist.bank-conflicts.lever': ('pad the tile ([32][33]) or swizzle its columns (XOR)',
                                       'rembourrer la tuile ([32][33]) ou permuter ses colonnes (XOR)',
                                       '给 tile 加一列填充（[32][33]），或用异或重排各列（swizzle）'),
    'checklist.latency.title': ('Memory latency not hidden: more bytes in flight per thread',
                                "Latence mémoire non cachée : plus d'octets en vol par thread",
                                '访存延迟没有被隐藏：让每个线程有更多字节在途'),
    'checklist.latency.symptom': ('latency-bound (both Speed of Light figures under {high_pct}), Long Scoreboard '
                                  'first, occupancy not the limit (theoretical {low_occupancy_pct} or more); at the '
                                  'DRAM roof Long Scoreboard leads too, and nothing is left to hide',
                                  'limité par la latence (les deux débits de Speed of Light sous {high_pct}), Long '
                                  "Scoreboard en tête, l'occupancy n'étant pas la limite (théorique à "
                                  '{low_occupancy_pct} ou plus) ; au plafond de la DRAM, Long Scoreboard mène aussi, '
                                  "et il n'y a rien à cacher",
                                  '延迟受限（Speed of Light 两项都低于 {high_pct}），Long Scoreboard 居首，'
                                  '占用率不是限制（理论值达到 {low_occupancy_pct} 或更高）；在 DRAM 屋顶上 Long '
                                  'Scoreboard 同样居首，那时没有什么可隐藏的'),
    'checklist.latency.lever': ('wider accesses (16 bytes per thread) and several independent loads per thread, '
                                'all issued before their first use (chapter 3, Volkov)',
                                'des accès plus larges (16 octets par thread) et plusieurs chargements indépendants '
                                'par thread, tous lancés avant leur premier usage (chapitre 3, Volkov)',
                                '更宽的访问（每线程 16 字节），每个线程发出多个相互独立的加载，'
                                '并且都在第一次使用之前发出（第 3 章，Volkov）'),
    'checklist.occupancy.title': ('Occupancy held down by a resource: more warps',
                                  'Occupancy bridée par une ressource : plus de warps',
                                  '占用率被某种资源压低：更多 warp'),
    'checklist.occupancy.symptom': ('latency-bound (both Speed of Light figures under {high_pct}), Long Scoreboard '
                                    'first, theoretical occupancy under {low_occupancy_pct}',
                                    'limité par la latence (les deux débits de Speed of Light sous {high_pct}), Long '
                                    'Scoreboard en tête, occupancy théorique sous {low_occupancy_pct}',
                                    '延迟受限（Speed of Light 两项都低于 {high_pct}），Long Scoreboard 居首，'
                                    '理论占用率低于 {low_occupancy_pct}'),
    'checklist.occupancy.lever': ('first more bytes in flight per thread where the code allows (wider accesses, '
                                  'several independent loads); '
                                  'otherwise lift the limiter: cap the registers (__launch_bounds__, max_registers) '
                                  'without spilling on the hot path, less shared memory per block, another block '
                                  'size',
                                  "d'abord plus d'octets en vol par thread si le code le permet (accès plus "
                                  'larges, plusieurs chargements indépendants) ; sinon lever la limite : plafonner les registres (__launch_bounds__, '
                                  'max_registers) sans débordement sur le chemin chaud, moins de mémoire partagée '
                                  'par bloc, une autre taille de bloc',
                                  '先在代码允许时让每个线程有更多字节在途（更宽的访问、多个相互独立的加载）；否则解除限制：限定寄存器数'
                                  '（__launch_bounds__、max_registers）而不在热路径上溢出，减少每个 block 的 '
                                  'shared memory，换一种 block 大小'),
    'checklist.fp64.title': ('Accidental FP64 in FP32 code', 'FP64 accidentel dans du code FP32',
                             'FP32 代码里意外的 FP64'),
    'checklist.fp64.symptom': ('the FP64 pipe busy in a kernel meant to be FP32 (DADD, DMUL, DFMA and F2F in the '
                               'SASS)',
                               'le pipe FP64 occupé dans un noyau censé être en FP32 (DADD, DMUL, DFMA et F2F dans '
                               'le SASS)',
                               '本应是 FP32 的 kernel 里 FP64 管线在忙（SASS 中有 DADD、DMUL、DFMA 和 F2F）'),
    'checklist.fp64.lever': ('float32 constants (np.float32(...) in Numba, the f suffix in C++) and float '
                             'arguments to math functions (sqrt(x * 0.5) computes in double); if FP64 is meant, '
                             'this is its roof',
                             'des constantes float32 (np.float32(...) en Numba, le suffixe f en C++) et des '
                             'arguments float aux fonctions mathématiques (sqrt(x * 0.5) calcule en double) ; si '
                             'le FP64 est voulu, c\'est son plafond',
                             '使用 float32 常量（Numba 中写 np.float32(...)，C++ 中加 f 后缀），数学函数的参数也用 '
                             'float（sqrt(x * 0.5) 按 double 计算）；若确实需要 FP64，这就是它的屋顶'),
    'checklist.divergence.title': ('Warp divergence', 'Divergence dans les warps', 'warp 内分歧'),
    'checklist.divergence.symptom': ('fewer than {divergence_threads} active threads per warp instruction',
                                     'moins de {divergence_threads} threads actifs par instruction de warp',
                                     '每条 warp 指令的活跃线程少于 {divergence_threads} 个'),
    'checklist.divergence.lever': ('make branches uniform within a warp: give each warp work that takes one path '
                                   '(reorder, sort or split the data)',
                                   'rendre les branches uniformes dans un warp : donner à chaque warp un travail qui '
                                   'suit un seul chemin (réordonner, trier ou séparer les données)',
                                   '让分支在 warp 内一致：给每个 warp 分配只走一条路径的工作（重排、排序或拆分数据）'),
    'checklist.instructions.title': ('Too many instructions per byte', "Trop d'instructions par octet",
                                     '每字节的指令太多'),
    'checklist.instructions.symptom': ('Compute (SM) at {high_pct} or more, set by instruction issue or an integer '
                                       'or load/store pipe rather than arithmetic',
                                       "Compute (SM) à {high_pct} ou plus, fixé par l'émission d'instructions ou un "
                                       'pipe entier ou de chargement plutôt que par le calcul',
                                       'Compute (SM) 达到 {high_pct} 或更高，却是由指令发射、整数或访存管线'
                                       '而不是算术决定的'),
    'checklist.instructions.lever': ('more bytes per instruction (vector loads), index arithmetic out of the loops, '
                                     'unrolling',
                                     "plus d'octets par instruction (chargements vectoriels), calcul d'indices sorti "
                                     'des boucles, déroulage',
                                     '每条指令搬更多字节（向量加载），把索引计算移出循环，循环展开'),
    'checklist.tensor-cores.title': ('Tensor cores for matrix products', 'Tensor cores pour les produits de matrices',
                                     '矩阵乘用 Tensor Core'),
    'checklist.tensor-cores.symptom': ('matrix products or convolutions computed on the FMA pipe (no HMMA or GMMA in '
                                       'the SASS): for such work, the first lever, before the rest of this list',
                                       'des produits de matrices ou des convolutions calculés sur le pipe FMA (ni HMMA '
                                       'ni GMMA dans le SASS) : pour ce travail, le premier levier, avant le reste de '
                                       'la liste',
                                       '矩阵乘或卷积在 FMA 管线上计算（SASS 中没有 HMMA 或 GMMA）：对这类工作，'
                                       '这是第一个手段，排在清单其余各条之前'),
    'checklist.tensor-cores.lever': ('a library (cuBLAS, cuDNN, CUTLASS) on the tensor cores, in TF32, BF16 or FP8 '
                                     '(torch.set_float32_matmul_precision("high") in PyTorch)',
                                     'une bibliothèque (cuBLAS, cuDNN, CUTLASS) sur les tensor cores, en TF32, BF16 ou '
                                     'FP8 (torch.set_float32_matmul_precision("high") en PyTorch)',
                                     '用库（cuBLAS、cuDNN、CUTLASS）在 Tensor Core 上以 TF32、BF16 或 FP8 计算'
                                     '（PyTorch 中用 torch.set_float32_matmul_precision("high")）'),
    # ----- what the report shows, per item ------------------------------------------------------
    'evidence.launch.grid': ('{blocks} blocks for {sms} SMs', '{blocks} blocs pour {sms} SM',
                             '{blocks} 个 block，{sms} 个 SM'),
    'evidence.launch.short': ('{duration_us} per launch, under {limit_us}', '{duration_us} par lancement, moins de '
                              '{limit_us}', '每次启动 {duration_us}，不到 {limit_us}'),
    'evidence.coalescing': ('{excess_pct} of the global sectors are excess sectors, beyond the ideal count for the '
                            'bytes requested',
                            '{excess_pct} des secteurs globaux sont en excès, au-delà du nombre idéal pour les '
                            'octets demandés',
                            '{excess_pct} 的全局 sector 是多余的，超出了所请求字节需要的理想数量'),
    'evidence.local-memory': ('{local_mb} of local-memory traffic, {share_pct} of the sectors at L1',
                              '{local_mb} de trafic en mémoire locale, {share_pct} des secteurs au L1',
                              'local memory 流量 {local_mb}，占 L1 处 sector 的 {share_pct}'),
    'evidence.bank-conflicts': ('{ways_x} the ideal shared-memory wavefronts ({excess_pct} added by conflicts)',
                                '{ways_x} les wavefronts idéales en mémoire partagée ({excess_pct} dues aux conflits)',
                                'shared memory 的 wavefront 是理想值的 {ways_x}（{excess_pct} 来自冲突）'),
    'evidence.fp64': ('FP64 pipe at {fp64_pipe_pct}; FP32 runs {rate_x} as fast on this GPU',
                      'pipe FP64 à {fp64_pipe_pct} ; le FP32 va {rate_x} plus vite sur ce GPU',
                      'FP64 管线 {fp64_pipe_pct}；在这块 GPU 上 FP32 的速率是它的 {rate_x}'),
    'evidence.fp64.conversions': ('XU pipe at {xu_pct} beside FP64 work (FP64 pipe at {fp64_pipe_pct}): the '
                                  'conversions between FP32 and FP64 (F2F) run on the XU pipe, and go with the FP64',
                                  'pipe XU à {xu_pct} à côté de calcul FP64 (pipe FP64 à {fp64_pipe_pct}) : les '
                                  'conversions entre FP32 et FP64 (F2F) passent par le pipe XU, et partent avec le FP64',
                                  'XU 管线 {xu_pct}，同时有 FP64 计算（FP64 管线 {fp64_pipe_pct}）：FP32 与 FP64 之间的'
                                  '转换（F2F）在 XU 管线上执行，去掉 FP64 也就去掉了它们'),
    'evidence.divergence': ('{threads} active threads per warp instruction, of 32',
                            '{threads} threads actifs par instruction de warp, sur 32',
                            '每条 warp 指令平均 {threads} 个活跃线程（满员 32 个）'),
    'evidence.occupancy.registers': ('theoretical occupancy {theoretical_pct}, limited by registers '
                                     '({registers} per thread)',
                                     'occupancy théorique {theoretical_pct}, limitée par les registres '
                                     '({registers} par thread)',
                                     '理论占用率 {theoretical_pct}，受寄存器限制（每线程 {registers} 个）'),
    'evidence.occupancy.shared_mem': ('theoretical occupancy {theoretical_pct}, limited by shared memory',
                                      'occupancy théorique {theoretical_pct}, limitée par la mémoire partagée',
                                      '理论占用率 {theoretical_pct}，受 shared memory 限制'),
    'evidence.occupancy.warps': ('theoretical occupancy {theoretical_pct}, limited by the warps per SM',
                                 'occupancy théorique {theoretical_pct}, limitée par le nombre de warps par SM',
                                 '理论占用率 {theoretical_pct}，受每个 SM 的 warp 数上限限制'),
    'evidence.occupancy.blocks': ('theoretical occupancy {theoretical_pct}, limited by the blocks per SM (blocks too '
                                  'small)',
                                  'occupancy théorique {theoretical_pct}, limitée par le nombre de blocs par SM '
                                  '(blocs trop petits)',
                                  '理论占用率 {theoretical_pct}，受每个 SM 的 block 数上限限制（block 太小）'),
    'evidence.latency': ('{stall_pct} of the stall cycles wait on memory (Long Scoreboard); busiest side at '
                         '{busiest_pct}',
                         '{stall_pct} des cycles de blocage attendent la mémoire (Long Scoreboard) ; côté le plus '
                         'chargé à {busiest_pct}',
                         '{stall_pct} 的 stall 周期在等内存（Long Scoreboard）；较忙的一侧为 {busiest_pct}'),
    'evidence.instructions': ('Compute (SM) {compute_pct} from instructions, Memory {memory_pct}',
                              'Compute (SM) {compute_pct} dû aux instructions, Memory {memory_pct}',
                              'Compute (SM) {compute_pct} 来自指令开销，Memory {memory_pct}'),
    'evidence.rule': ('ncu rule fired', 'règle de ncu déclenchée', 'ncu 规则已触发'),
    # ----- the sections to read -----------------------------------------------------------------
    'read.01-roofline.t-min': ('ch.\u00a01 · The bound: t_min', 'chap.\u00a01 · La borne : t_min', '第 1 章 · 时间下限：t_min'),
    'read.01-roofline.verdict': ('ch.\u00a01 · Measure and compare', 'chap.\u00a01 · Mesurer et comparer',
                                 '第 1 章 · 测量并比较'),
    'read.01-roofline.intensity': ('ch.\u00a01 · Arithmetic intensity', "chap.\u00a01 · L'intensité arithmétique",
                                   '第 1 章 · 算术强度'),
    'read.01-roofline.ex-stencil': ('ch.\u00a01 · A stencil (reuse)', 'chap.\u00a01 · Un stencil (réutilisation)',
                                    '第 1 章 · 模板计算（复用）'),
    'read.01-roofline.ex-gemm': ('ch.\u00a01 · A GEMM tile', 'chap.\u00a01 · Une tuile de GEMM', '第 1 章 · GEMM 的分块'),
    'read.01-roofline.hierarchy': ('ch.\u00a01 · The hierarchical view: L2 and L1',
                                   'chap.\u00a01 · La vue hiérarchique : L2 et L1', '第 1 章 · 分层视角：L2 与 L1'),
    'read.01-roofline.ridge': ('ch.\u00a01 · The machine balance (FP32 and FP64 peaks)',
                               'chap.\u00a01 · Le seuil de la machine (pics FP32 et FP64)',
                               '第 1 章 · 机器阈值（FP32 与 FP64 峰值）'),
    'read.02-coalescing.stride': ('ch.\u00a02 · Stride and misalignment', 'chap.\u00a02 · Pas et désalignement',
                                  '第 2 章 · 步长与未对齐'),
    'read.02-coalescing.vector': ('ch.\u00a02 · Vector loads', 'chap.\u00a02 · Chargements vectoriels', '第 2 章 · 向量化加载'),
    'read.02-coalescing.conflicts': ('ch.\u00a02 · Conflicts and broadcast', 'chap.\u00a02 · Conflits et diffusion',
                                     '第 2 章 · 冲突与广播'),
    'read.02-coalescing.padding-swizzle': ('ch.\u00a02 · Padding and XOR swizzling', 'chap.\u00a02 · Rembourrage et '
                                           'permutation XOR', '第 2 章 · 填充与异或重排'),
    'read.03-occupancy': ('ch.\u00a03 · Occupancy and latency', 'chap.\u00a03 · Occupancy et latence', '第 3 章 · 占用率与延迟'),
    'read.03-occupancy.volkov': ('ch.\u00a03 · Volkov: better with less occupancy',
                                 "chap.\u00a03 · Volkov : mieux avec moins d'occupancy",
                                 '第 3 章 · Volkov：占用率更低，反而更快'),
    'read.03-occupancy.occupancy': ('ch.\u00a03 · Occupancy and what limits it',
                                    "chap.\u00a03 · L'occupancy et ce qui la limite", '第 3 章 · 占用率及其限制'),
    'read.04-profiling.tool-order': ('ch.\u00a04 · The order of the tools', "chap.\u00a04 · L'ordre des outils",
                                     '第 4 章 · 工具的使用顺序'),
    'read.04-profiling.four-questions': ('ch.\u00a04 · Four questions to the timeline', 'chap.\u00a04 · Les quatre questions '
                                         'à la chronologie', '第 4 章 · 向时间线提的四个问题'),
    'read.04-profiling.speed-of-light': ('ch.\u00a04 · Speed of Light', 'chap.\u00a04 · Speed of Light',
                                         '第 4 章 · Speed of Light'),
    'read.04-profiling.memory-workload': ('ch.\u00a04 · Memory Workload Analysis', 'chap.\u00a04 · Memory Workload Analysis',
                                          '第 4 章 · Memory Workload Analysis'),
    'read.04-profiling.warp-states': ('ch.\u00a04 · Warp State Statistics', 'chap.\u00a04 · Warp State Statistics',
                                      '第 4 章 · Warp State Statistics'),
    'read.04-profiling.source-counters': ('ch.\u00a04 · Source Counters', 'chap.\u00a04 · Source Counters',
                                          '第 4 章 · Source Counters'),
    'read.04-profiling.occupancy': ('ch.\u00a04 · Occupancy', 'chap.\u00a04 · Occupancy', '第 4 章 · Occupancy'),
    'read.04-profiling.sass': ('ch.\u00a04 · The SASS', 'chap.\u00a04 · Le SASS', '第 4 章 · SASS'),
    'read.05-checklist': ('ch.\u00a05', 'chap.\u00a05', '第 5 章'),
    # ----- `labkit diagnose` ----------------------------------------------------------------------
    'diag.launch': ('Launch', 'Lancement', '启动'),
    'diag.launch_line': ('{blocks} blocks of {threads} threads for {sms} SMs ({per_sm} per SM) · {duration_us}',
                         '{blocks} blocs de {threads} threads pour {sms} SM ({per_sm} par SM) · {duration_us}',
                         '{blocks} 个 block × {threads} 线程，{sms} 个 SM（每 SM {per_sm} 个）· {duration_us}'),
    # with ncu's Waves Per SM: waves counted at the kernel's theoretical occupancy
    'diag.launch_line_waves': ('{blocks} blocks of {threads} threads for {sms} SMs ({per_sm} per SM) · Waves\u00a0Per\u00a0SM '
                               '{waves} · {duration_us}',
                               '{blocks} blocs de {threads} threads pour {sms} SM ({per_sm} par SM) · Waves\u00a0Per\u00a0SM '
                               '{waves} · {duration_us}',
                               '{blocks} 个 block × {threads} 线程，{sms} 个 SM（每 SM {per_sm} 个）· Waves\u00a0Per\u00a0SM '
                               '{waves} · {duration_us}'),
    'diag.sol': ('Speed of Light', 'Speed of Light', 'Speed of Light'),
    'diag.sol_line': ('Compute (SM) {compute_pct} · Memory {memory_pct} (DRAM {dram_pct}, L2 {l2_pct}, L1 {l1_pct})',
                      'Compute (SM) {compute_pct} · Memory {memory_pct} (DRAM {dram_pct}, L2 {l2_pct}, L1 {l1_pct})',
                      'Compute (SM) {compute_pct} · Memory {memory_pct}（DRAM {dram_pct}，L2 {l2_pct}，L1 {l1_pct}）'),
    'diag.quadrant': ('Quadrant', 'Quadrant', '象限'),
    'diag.busiest': ('Busiest units', 'Plus chargées', '最忙的单元'),
    'diag.occupancy': ('Occupancy', 'Occupancy', '占用率'),
    'diag.occupancy_line': ('theoretical {theoretical_pct}, achieved {achieved_pct}, {registers} registers per '
                            'thread',
                            'théorique {theoretical_pct}, atteinte {achieved_pct}, {registers} registres par thread',
                            '理论 {theoretical_pct}，实际 {achieved_pct}，每线程 {registers} 个寄存器'),
    'diag.occupancy_limited': ('theoretical {theoretical_pct}, limited by {limiter}; achieved {achieved_pct}; '
                               '{registers} registers per thread',
                               'théorique {theoretical_pct}, limitée par {limiter} ; atteinte {achieved_pct} ; '
                               '{registers} registres par thread',
                               '理论 {theoretical_pct}（受{limiter}限制），实际 {achieved_pct}，每线程 {registers} 个寄存器'),
    'diag.limiter.registers': ('registers', 'les registres', '寄存器'),
    'diag.limiter.shared_mem': ('shared memory', 'la mémoire partagée', 'shared memory'),
    'diag.limiter.warps': ('warps per SM', 'les warps par SM', '每 SM warp 数'),
    'diag.limiter.blocks': ('blocks per SM', 'les blocs par SM', '每 SM block 数'),
    'diag.stalls': ('Top stalls', 'Blocages', '主要 stall'),
    'diag.sectors': ('Bytes / sector', 'Octets / secteur', '字节 / sector'),
    'diag.sectors_line': ('global loads use {load_bytes} of 32 bytes per sector, stores {store_bytes}',
                          'les chargements globaux utilisent {load_bytes} des 32 octets de chaque secteur, les '
                          'écritures {store_bytes}',
                          '全局加载每个 sector 用到 32 字节中的 {load_bytes} 字节，写入用到 {store_bytes} 字节'),
    'diag.shared': ('Shared memory', 'Mém. partagée', 'shared memory'),
    'diag.shared_line': ('{wavefronts} wavefronts for an ideal of {ideal}', '{wavefronts} wavefronts pour un idéal '
                         'de {ideal}', '{wavefronts} 个 wavefront，理想值 {ideal}'),
    'diag.shared_none': ('no shared-memory access', 'aucun accès à la mémoire partagée', '没有 shared memory 访问'),
    'diag.local': ('Local memory', 'Mém. locale', 'local memory'),
    'diag.local_line': ('{local_mb} of traffic', '{local_mb} de trafic', '流量 {local_mb}'),
    'diag.threads': ('Warp activity', 'Activité warp', 'warp 活跃度'),
    'diag.threads_line': ('{threads} active threads per warp instruction, of 32',
                          '{threads} threads actifs par instruction de warp, sur 32',
                          '每条 warp 指令平均 {threads} 个活跃线程（满员 32 个）'),
    'diag.fp64': ('FP64 pipe', 'Pipe FP64', 'FP64 管线'),
    'diag.fp64_line': ('{fp64_pipe_pct} of its peak', '{fp64_pipe_pct} de son pic', '峰值的 {fp64_pipe_pct}'),
    'diag.items': ('Checklist items, by expected gain', 'Éléments de la checklist, par gain attendu',
                   '触发的清单条目（按预期收益排序）'),
    'diag.items_below': ('Below the stop band (listed, not worth it here)', "Sous la zone d'arrêt (listés, sans "
                         'intérêt ici)', '低于停止线（仅列出，此处不值得做）'),
    'diag.gain': ('expected gain {gain_pct}', 'gain attendu {gain_pct}', '预期收益 {gain_pct}'),
    'diag.gain_unknown': ('gain: see the timeline', 'gain : voir la chronologie', '收益：看时间线'),
    'diag.gain_from_rule': ('ncu {rule}', 'ncu {rule}', 'ncu {rule}'),
    'diag.gain_from_labkit': ('labkit estimate', 'estimation labkit', 'labkit 估算'),
    'diag.read': ('read', 'lire', '阅读'),
    'diag.lever': ('lever', 'levier', '手段'),
    'diag.verdict.at-roof': ('At the roof, stop: {unit} at {roof_pct} of its peak, no wasted work. Only another roof helps: '
                             '{lever}.',
                             'Au plafond, arrêtez : {unit} à {roof_pct} de son pic, sans travail gaspillé. Seul un autre '
                             'plafond aide : {lever}.',
                             '已到屋顶，停手：{unit} 达到峰值的 {roof_pct}，没有浪费的工作。只有换一个屋顶才有用：{lever}。'),
    'diag.verdict.first': ('First lever — {title}.', 'Premier levier — {title}.', '首要手段——{title}。'),
    'diag.verdict.none': ('No checklist item fires from this report: check the paper estimate (item 1) and the '
                          'timeline (item 2).',
                          "Aucun élément de la checklist ne se déclenche sur ce rapport : vérifiez l'estimation sur "
                          'papier (élément 1) et la chronologie (élément 2).',
                          '这份报告没有触发任何清单条目：请检查纸上估算（第 1 条）和时间线（第 2 条）。'),
    'diag.timeline_note': ('ncu sees one kernel at a time: whether the GPU is busy between kernels is item 2, on the '
                           'timeline (nsys).',
                           'ncu voit un noyau à la fois : savoir si le GPU travaille entre les noyaux relève de '
                           "l'élément 2, sur la chronologie (nsys).",
                           'ncu 一次只看一个 kernel：kernel 之间 GPU 是否空闲属于第 2 条，要看时间线（nsys）。'),
    'diag.no_rules': ('(no details page: expected gains are labkit\'s estimates; export `--page details` for ncu\'s '
                      'Est. Speedup)',
                      '(pas de page details : les gains attendus sont les estimations de labkit ; exportez '
                      '`--page details` pour l\'Est. Speedup de ncu)',
                      '（没有 details 页：预期收益为 labkit 的估算；导出 `--page details` 可得到 ncu 的 Est. Speedup）'),
    'diag.roof.dram': ('DRAM', 'la DRAM', 'DRAM'),
    'diag.roof.pipe_fma': ('the FMA pipe', 'le pipe FMA', 'FMA 管线'),
    'diag.roof.pipe_fp64': ('the FP64 pipe', 'le pipe FP64', 'FP64 管线'),
    'diag.roof.pipe_tensor': ('the tensor pipe', 'le pipe tensor', 'tensor 管线'),
    'diag.roof.pipe_xu': ('the XU pipe', 'le pipe XU', 'XU 管线'),
    # ----- the chapter's blocks ---------------------------------------------------------------------
    'column.number': ('#', 'n°', '序号'),
    'column.item': ('item', 'élément', '条目'),
    'column.symptom': ('symptom', 'symptôme', '症状'),
    'column.lever': ('lever', 'levier', '手段'),
    'column.read': ('read', 'à lire', '阅读'),
    'column.measured_gain': ('gain measured in this course', 'gain mesuré dans ce cours', '本课程实测的收益'),
    'checklist.not_in_reports': ('(an ncu report alone cannot tell)', '(un rapport ncu seul ne le dit pas)',
                                 '（仅凭 ncu 报告无法判断）'),
    'checklist.no_gain_yet': ('not measured yet', 'pas encore mesuré', '尚未测量'),
    'checklist.coming': ('{section} (coming)', '{section} (à venir)', '{section}（即将发布）'),
    'profile.caption': ('What Nsight Compute shows for {kernel} ({gpu})', 'Ce que Nsight Compute montre pour '
                        '{kernel} ({gpu})', 'Nsight Compute 对 {kernel} 的结果（{gpu}）'),
    'profile.summary': ('labkit diagnose, then the repair, measured', 'labkit diagnose, puis la réparation, mesurée',
                        'labkit diagnose 的结论，以及修复后的实测'),
    'profile.raw_note': ('The symptoms under their raw names, as ncu --page raw prints them: chapter 4 says what each '
                         'metric measures.',
                         'Les symptômes sous leur nom brut, comme les écrit ncu --page raw : le chapitre 4 dit ce que '
                         'mesure chaque métrique.',
                         '症状以原始指标名列出，与 ncu --page raw 的输出一致：每个指标测的是什么，见第 4 章。'),
    'profile.locked': ('Answer the question above: the diagnosis opens once you have.',
                       'Répondez à la question ci-dessus : le diagnostic s\'ouvre ensuite.',
                       '先回答上面的问题：答完之后才能看到诊断。'),
    'profile.twin_gain': ('The repaired twin runs {gain_x} as fast ({faulty_us} → {repaired_us}, medians).',
                          'Le jumeau réparé va {gain_x} plus vite ({faulty_us} → {repaired_us}, médianes).',
                          '修复后的版本快 {gain_x}（{faulty_us} → {repaired_us}，中位数）。'),
    'profile.summary_step': ('labkit diagnose on this step', 'labkit diagnose sur cette étape',
                             'labkit diagnose 对这一步的诊断'),
    'profile.next_step': ("Nothing was planted here: this is a step of the chapter's sequence. The next step is "
                          '{title}; the lab\'s table gives its time.',
                          "Rien n'a été planté ici : c'est une étape de la suite du chapitre. L'étape suivante "
                          'est {title} ; le tableau du lab donne son temps.',
                          '这里没有预埋缺陷：这是本章序列中的一步。下一步是“{title}”，实验表格给出它的耗时。'),
    'profile.last_step': ("Nothing was planted here: this is the chapter's last step; the lab's table sets it "
                          'against cuBLAS.',
                          "Rien n'a été planté ici : c'est la dernière étape du chapitre ; le tableau du lab la "
                          'compare à cuBLAS.',
                          '这里没有预埋缺陷：这是本章的最后一步；实验表格把它与 cuBLAS 对比。'),
    'profile.control': ('Nothing to repair: this kernel is the negative control.',
                        'Rien à réparer : ce noyau est le témoin négatif.',
                        '无需修复：这个 kernel 是阴性对照。'),
    'profile.verdict_matches': ('The item to find: {title}.', "L'élément à trouver : {title}.",
                                '应当找出的条目：{title}。'),
    'profile.ratio_to_min': ('t_real / t_min against the copy ceiling measured in the same run: {ratio}.',
                             't_réel / t_min face au plafond de copie mesuré pendant la même exécution : {ratio}.',
                             '相对同一次运行中实测的拷贝上限，t_real / t_min = {ratio}。'),
    # ----- ranking mechanics and new evidence (helper "meas", issue 19; wording open to text45) -----
    'evidence.occupancy.achieved': ('achieved occupancy {achieved_pct}, against {theoretical_pct} in theory: warps '
                                    'lost at run time, not to a resource (blocks of unequal work, a partial last '
                                    'wave): balance the work, plan whole waves',
                                    'occupancy atteinte {achieved_pct}, pour {theoretical_pct} en théorie : des warps '
                                    "perdus à l'exécution, pas à une ressource (blocs de travail inégal, dernière "
                                    'vague partielle) : équilibrer le travail, prévoir des vagues entières',
                                    '实际占用率 {achieved_pct}，理论值 {theoretical_pct}：warp 是在运行时损失的，'
                                    '不是被某种资源限制（各 block 工作量不均、最后一个波次不满）：平衡工作量，按整数个波次规划'),
    'diag.gain_capped': ('expected gain {gain_pct} at most ({estimate}; {unit} is at {roof_pct} of its peak and this '
                         'lever removes no work)',
                         'gain attendu {gain_pct} au plus ({estimate} ; {unit} est à {roof_pct} de son pic et ce '
                         'levier ne supprime aucun travail)',
                         '预期收益至多 {gain_pct}（{estimate}；{unit} 已达峰值的 {roof_pct}，而这条手段不减少任何工作）'),
    'diag.gain_discounted': ('expected gain {gain_pct} ({estimate}, less the {waste_pct} of it that is the waste '
                             '"{title}" removes)',
                             'gain attendu {gain_pct} ({estimate}, moins les {waste_pct} qui sont le gaspillage '
                             'que « {title} » supprime)',
                             '预期收益 {gain_pct}（{estimate}，扣除其中属于“{title}”会消除的浪费的 {waste_pct}）'),
    'diag.ranked_first_short': ('ranked first whatever the estimates: launching this kernel costs about as long as '
                                'running it',
                                'classé en tête quelles que soient les estimations : lancer ce noyau coûte à peu '
                                "près autant que l'exécuter",
                                '无论估算如何，排在首位：启动这个 kernel 的开销与运行它相当'),
    'diag.verdict.unlisted': ('No checklist item covers what limits this kernel: {unit} at {roof_pct} of its peak. '
                              '{hint}',
                              "Aucun élément de la checklist ne couvre ce qui limite ce noyau : {unit} à {roof_pct} "
                              'de son pic. {hint}',
                              '没有哪条清单条目覆盖限制这个 kernel 的因素：{unit} 达到峰值的 {roof_pct}。{hint}'),
    'diag.unlisted.pipe_xu': ('The XU pipe runs the special functions (sin, cos, exp, log, rsqrt through MUFU) and '
                              'conversions on far fewer units than the FMAs (the CUDA C++ Programming Guide\'s '
                              'throughput table): compute fewer of them, or replace some with FMA arithmetic.',
                              'Le pipe XU exécute les fonctions spéciales (sin, cos, exp, log, rsqrt par MUFU) et les '
                              "conversions sur bien moins d'unités que les FMA (table de débit du CUDA C++ "
                              "Programming Guide) : calculez-en moins, ou remplacez-en une partie par de "
                              "l'arithmétique FMA.",
                              'XU 管线执行特殊函数（经 MUFU 的 sin、cos、exp、log、rsqrt）和类型转换，其单元远少于 FMA'
                              '（见 CUDA C++ Programming Guide 的吞吐量表）：少算一些，或把其中一部分换成 FMA 运算。'),
    'diag.unlisted.tensor_pipeline': ('A tensor-core kernel built for few warps per SM hides its latencies with '
                                      'asynchronous copies and a pipeline of shared-memory stages, not with more '
                                      'warps: what is left is the pipeline (stages deep enough, TMA and mbarriers, '
                                      'producer and consumer warpgroups in balance, the epilogue overlapped); '
                                      'chapter 6 builds one.',
                                      'Un noyau tensor bâti pour peu de warps par SM cache ses latences par des '
                                      'copies asynchrones et un pipeline d\'étages en mémoire partagée, pas par plus '
                                      'de warps : reste le pipeline (assez d\'étages, TMA et mbarriers, warpgroups '
                                      'producteurs et consommateurs équilibrés, épilogue recouvert) ; le chapitre 6 '
                                      'en construit un.',
                                      '为每个 SM 少量 warp 设计的 Tensor Core kernel 靠异步拷贝和 shared memory 多级流水线'
                                      '隐藏延迟，而不是靠更多 warp：剩下的是流水线本身（级数足够、TMA 与 mbarrier、生产者与'
                                      '消费者 warpgroup 的平衡、与之重叠的收尾写回）；第 6 章会搭建这样一条流水线。'),
    'diag.roof.tensor_pipeline': ('the tensor pipe', 'le pipe tensor', 'tensor 管线'),
    'diag.top_summary': ('The {shown} kernels that take the most GPU time, of {kernels} kernels in {launches} '
                         'launches ({total_ms} of GPU time in all); each is diagnosed on its longest launch.',
                         "Les {shown} noyaux qui prennent le plus de temps GPU, sur {kernels} noyaux en {launches} "
                         'lancements ({total_ms} de temps GPU en tout) ; chacun est diagnostiqué sur son lancement '
                         'le plus long.',
                         '占用 GPU 时间最多的 {shown} 个 kernel（共 {kernels} 个 kernel、{launches} 次启动，GPU 时间'
                         '合计 {total_ms}）；每个 kernel 按其耗时最长的一次启动来诊断。'),
    'diag.top_group': ('launches: {launches} · {total_ms} in all ({share_pct} of the report\'s GPU time) · the '
                       'longest, diagnosed here: {duration_us}',
                       'lancements : {launches} · {total_ms} en tout ({share_pct} du temps GPU du rapport) · le plus '
                       'long, diagnostiqué ici : {duration_us}',
                       '启动次数：{launches} · 合计 {total_ms}（占报告 GPU 时间的 {share_pct}）· 此处诊断的是最长的一次：'
                       '{duration_us}'),
    'diag.roof.issue': ('instruction issue', "l'émission d'instructions", '指令发射'),
    'diag.roof.l2': ('L2', 'le L2', 'L2'),
    'diag.roof.l2_atomics': ("the busiest L2 slice's atomic unit", "l'unité atomique de la tranche de L2 la plus "
                             'chargée', '最忙的 L2 slice 的原子操作单元'),
    'evidence.occupancy.achieved_grid': ('achieved occupancy {achieved_pct}, against {theoretical_pct} in theory: the '
                                         'grid is {waves} of a wave at this occupancy, so every SM keeps warp slots '
                                         'empty: more threads (split each one\'s work)',
                                         'occupancy atteinte {achieved_pct}, pour {theoretical_pct} en théorie : la '
                                         'grille fait {waves} vague à cette occupancy, chaque SM garde des places de '
                                         'warps vides : plus de threads (partager le travail de chacun)',
                                         '实际占用率 {achieved_pct}，理论值 {theoretical_pct}：在该占用率下 grid 只有 '
                                         '{waves} 个波次，每个 SM 都有空着的 warp 槽位：增加线程（拆分每个线程的工作）'),
    'diag.verdict.atomics': ('No checklist item covers what limits this kernel: atomics serialise in one L2 slice, '
                             'its atomic unit at {hot_pct} of its peak while the average slice is at {average_pct}. '
                             '{hint}',
                             "Aucun élément de la checklist ne couvre ce qui limite ce noyau : les atomiques se "
                             'sérialisent dans une tranche de L2, dont l\'unité atomique est à {hot_pct} de son pic '
                             'quand la tranche moyenne est à {average_pct}. {hint}',
                             '没有哪条清单条目覆盖限制这个 kernel 的因素：原子操作在一个 L2 slice 中串行执行，'
                             '它的原子单元达到峰值的 {hot_pct}，而平均每个 slice 只有 {average_pct}。{hint}'),
    'diag.unlisted.l2_atomics': ('Many threads update the same few addresses: count in shared memory per block '
                                 '(one global atomic per block and address), or reduce in the warp first and '
                                 'let one lane add.',
                                 'Beaucoup de threads mettent à jour les mêmes quelques adresses : comptez en mémoire '
                                 'partagée par bloc (un atomique global par bloc et par adresse), ou réduisez '
                                 "d'abord dans le warp et laissez une lane ajouter.",
                                 '大量线程更新同样几个地址：先在每个 block 的 shared memory 中计数（每个 block、每个地址'
                                 '只做一次全局原子操作），或者先在 warp 内归约，再由一个 lane 累加。'),
}
