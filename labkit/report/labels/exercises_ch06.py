"""Chapter 6's exercises: titles, hints and their own metric. (en, fr, zh)"""

WORDS = {
    'exercise.metric.flops_per_shared_wavefront': (
        'FLOP per shared-memory load wavefront', 'FLOP par wavefront de lecture en mémoire partagée',
        '每个 shared memory 读 wavefront 对应的 FLOP',
    ),
    'exercise.06-padding.title': (
        'The A tile without bank conflicts', 'La tuile A sans conflits de banc', '没有 bank 冲突的 A 块',
    ),
    'exercise.06-padding.hint.correct': (
        'c must equal a @ b within the tolerance of FP32 accumulation. If you pad sa, every read and write of it '
        'keeps the same [k, m] indices; only the declared shape changes. If you swizzle, apply the same rule when '
        'writing and when reading.',
        'c doit valoir a @ b à la tolérance d’une accumulation FP32 près. Si vous élargissez sa, chaque lecture et '
        'écriture garde les mêmes indices [k, m] ; seule la forme déclarée change. Si vous permutez, appliquez la '
        'même règle à l’écriture et à la lecture.',
        'c 必须在 FP32 累加的容差内等于 a @ b。如果给 sa 加填充，对它的每次读写都保持同样的 [k, m] 下标，'
        '只改声明的形状；如果用重排，写入和读出要用同一规则。',
    ),
    'exercise.06-padding.hint.conflicts': (
        'In sa of shape (32, 32), sa[tx, ty] for tx = 0..31 is 32 words 32 apart: one bank, 32 wavefronts. '
        'Declare it (32, 33): row k starts at word 33 k and the column lands in 32 different banks.',
        'Dans sa de forme (32, 32), sa[tx, ty] pour tx de 0 à 31, ce sont 32 mots distants de 32 : un seul banc, '
        '32 wavefronts. Déclarez-la (32, 33) : la ligne k commence au mot 33 k et la colonne tombe dans 32 bancs '
        'différents.',
        '形状为 (32, 32) 的 sa 中，tx 从 0 到 31 的 sa[tx, ty] 是彼此相隔 32 的 32 个字：同一个 bank，32 个 '
        'wavefront。把它声明为 (32, 33)：第 k 行从第 33 k 个字开始，这一列就落在 32 个不同的 bank。',
    ),
    'exercise.06-padding.hint.time': (
        'Still slower than our padded tile: check that no other shared access conflicts (sb is read and written '
        'along its rows) and that the global loads stay coalesced (consecutive tx on consecutive columns).',
        'Encore plus lent que notre tuile élargie : vérifiez qu’aucun autre accès partagé n’entre en conflit (sb se '
        'lit et s’écrit le long de ses lignes) et que les chargements globaux restent coalescés (des tx '
        'consécutifs sur des colonnes consécutives).',
        '仍比我们加了填充的版本慢：检查其他 shared 访问是否还有冲突（sb 沿行读写），以及全局加载是否仍然合并'
        '（相邻的 tx 对应相邻的列）。',
    ),
    'exercise.06-regtile.title': (
        'Register-tile the shared-memory kernel', 'Des blocs en registres dans le noyau par tuiles',
        '给 shared memory 分块的 kernel 加上寄存器分块',
    ),
    'exercise.06-regtile.hint.correct': (
        'c must equal a @ b within the tolerance of FP32 accumulation. Each thread owns r x r elements of C: '
        'start its accumulators at zero, load every slice of A and B completely before the barrier, and write each '
        'element once at the end.',
        'c doit valoir a @ b à la tolérance d’une accumulation FP32 près. Chaque thread possède r × r éléments de '
        'C : mettez ses accumulateurs à zéro, chargez chaque tranche de A et de B en entier avant la barrière, et '
        'écrivez chaque élément une fois à la fin.',
        'c 必须在 FP32 累加的容差内等于 a @ b。每个线程负责 C 的 r × r 个元素：累加器从零开始，在屏障之前把 '
        'A 和 B 的每一段完整加载，最后每个元素只写一次。',
    ),
    'exercise.06-regtile.hint.wavefronts': (
        'At each k, read r values of A and r of B into registers (cuda.local.array) and do r x r FMAs from them: '
        '32 r FLOP per wavefront. r = 4 gives 128. Let a warp read consecutive words of a row of B (columns '
        'tx + 16 j rather than 8 tx + j), or the reads conflict and count more wavefronts.',
        'À chaque k, lisez r valeurs de A et r de B dans des registres (cuda.local.array) et faites-en r × r FMA : '
        '32 r FLOP par wavefront. r = 4 donne 128. Faites lire à un warp des mots consécutifs d’une ligne de B '
        '(colonnes tx + 16 j plutôt que 8 tx + j), sinon les lectures entrent en conflit et comptent plus de '
        'wavefronts.',
        '每一步 k，把 A 的 r 个值和 B 的 r 个值读入寄存器（cuda.local.array），用它们做 r × r 次 FMA：每个 '
        'wavefront 32 r FLOP。r = 4 即得 128。让一个 warp 读 B 某一行中连续的字（列取 tx + 16 j 而不是 '
        '8 tx + j），否则读取会冲突，wavefront 会更多。',
    ),
    'exercise.06-regtile.hint.time': (
        'Still more than 1.3 times our time: look at the registers and local memory the check shows (an array indexed '
        'by a value the compiler cannot unroll goes to local memory), and at the block size (a tile of C per block '
        'large enough that each thread has its r x r elements).',
        'Encore plus de 1,3 fois notre temps : regardez les registres et la mémoire locale que la vérification '
        'affiche (un tableau indexé par une valeur que le compilateur ne peut pas dérouler part en mémoire locale), '
        'et la taille du bloc (une tuile de C par bloc assez grande pour que chaque thread ait ses r × r éléments).',
        '仍超过我们时间的 1.3 倍：看检查显示的寄存器与 local memory（用编译器无法展开的值做下标的数组会进入 '
        'local memory），以及 block 大小（每个 block 的 C 块要足够大，使每个线程都有自己的 r × r 个元素）。',
    ),
}
