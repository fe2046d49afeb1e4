"""Chapter 2's exercises: titles and hints. (en, fr, zh)"""

WORDS = {
    'exercise.02-transpose.title': (
        'A transpose without bank conflicts', 'Une transposée sans conflits de banc', '没有 bank 冲突的转置',
    ),
    'exercise.02-transpose.hint.correct': (
        'target[c, r] must be source[r, c] for every element, including the partial tiles at the right and '
        'bottom edges (the matrix is not square and its sides are not multiples of 32): test the source\'s '
        'bounds when reading and the target\'s when writing, and read the tile with the same layout you wrote it in.',
        'target[c, r] doit valoir source[r, c] pour chaque élément, tuiles partielles des bords droit et bas '
        'comprises (la matrice n’est pas carrée et ses côtés ne sont pas des multiples de 32) : testez les bornes '
        'de source à la lecture, celles de target à l’écriture, et relisez la tuile avec la disposition '
        'utilisée pour l’écrire.',
        '每个元素都必须满足 target[c, r] = source[r, c]，右边和下边不完整的 tile 也不例外（矩阵不是方阵，'
        '边长也不是 32 的倍数）：读入时检查 source 的边界，写出时检查 target 的边界，并且按写入 tile 时的'
        '布局把它读出来。',
    ),
    'exercise.02-transpose.hint.conflicts': (
        'In tile[32][32], element (r, c) is in bank c mod 32: a column is 32 words of one bank, 32 wavefronts. '
        'Give each row one more word, tile[32][33], so that (r, c) is in bank (r + c) mod 32, or keep 32 words and '
        'store (r, c) at column c ^ r, when writing and when reading.',
        'Dans tile[32][32], l’élément (r, c) est dans le banc c mod 32 : une colonne, ce sont 32 mots d’un même '
        'banc, 32 wavefronts. Donnez un mot de plus à chaque ligne, tile[32][33], pour que (r, c) soit dans le '
        'banc (r + c) mod 32, ou gardez 32 mots et rangez (r, c) en colonne c ^ r, à l’écriture comme à la lecture.',
        '在 tile[32][32] 中，元素 (r, c) 位于 bank c mod 32：一列是同一个 bank 里的 32 个字，需要 32 个 '
        'wavefront。给每行多加一个字，写成 tile[32][33]，让 (r, c) 落在 bank (r + c) mod 32；或者保持每行 32 '
        '个字，把 (r, c) 存到第 c ^ r 列，写入和读出都用这一规则。',
    ),
    'exercise.02-transpose.hint.loads': (
        'Consecutive lanes (threadIdx.x) must read consecutive floats of one row of source: source[row, x] with x '
        'following threadIdx.x, 4 sectors per request. Reading down a column makes every lane touch its own sector.',
        'Des voies consécutives (threadIdx.x) doivent lire des flottants consécutifs d’une ligne de source : '
        'source[ligne, x] avec x qui suit threadIdx.x, 4 secteurs par requête. Lire le long d’une colonne donne '
        'à chaque voie son propre secteur.',
        '相邻的 lane（threadIdx.x）必须读取 source 同一行中相邻的浮点数：source[行, x]，x 随 threadIdx.x '
        '递增，每次请求 4 个 sector。沿列读取会让每个 lane 各占一个 sector。',
    ),
    'exercise.02-transpose.hint.stores': (
        'Writing target[x, y] with x following threadIdx.x writes down a column: each lane in its own row, '
        '32 sectors per request. Go through the shared tile, so that consecutive lanes write consecutive floats '
        'of one row of target.',
        'Écrire target[x, y] avec x qui suit threadIdx.x, c’est écrire le long d’une colonne : chaque voie dans sa '
        'propre ligne, 32 secteurs par requête. Passez par la tuile partagée, pour que des voies consécutives '
        'écrivent des flottants consécutifs d’une ligne de target.',
        '写 target[x, y] 而 x 随 threadIdx.x 递增，就是沿列写：每个 lane 写在各自的行里，每次请求 32 个 '
        'sector。经 shared memory 中的 tile 中转，让相邻的 lane 写 target 同一行中相邻的浮点数。',
    ),
    'exercise.02-transpose.hint.time': (
        'Shared memory serves one wavefront per cycle: a column read of tile[32][32] takes 32, so a tile costs more '
        'cycles in shared memory than its 8 KiB take to come from and go to DRAM. Remove the conflicts first '
        '(the simulator counts them).',
        'La mémoire partagée sert une wavefront par cycle : la lecture d’une colonne de tile[32][32] en prend 32, '
        'et une tuile coûte alors plus de cycles en mémoire partagée que ses 8 Kio n’en prennent pour aller et '
        'venir de la DRAM. Supprimez d’abord les conflits (le simulateur les compte).',
        'shared memory 每个周期处理一个 wavefront：读 tile[32][32] 的一列要 32 个，于是一个 tile 在 shared memory 上花的'
        '周期比它的 8 KiB 往返 DRAM 还多。先消除冲突（模拟器会统计冲突数）。',
    ),
    'exercise.02-aos.title': (
        'Coalesced accesses to an array of structures', 'Des accès coalescés à un tableau de structures',
        '对结构体数组的合并访存',
    ),
    'exercise.02-aos.hint.correct': (
        'out must hold every field of every particle: x, y, z advanced by vx·dt, vy·dt, vz·dt, the five others '
        'copied as they are. out arrives filled with NaN, so a field left unwritten shows; make sure no thread '
        'goes past the last particle.',
        'out doit contenir chaque champ de chaque particule : x, y, z avancés de vx·dt, vy·dt, vz·dt, les cinq '
        'autres recopiés tels quels. out arrive rempli de NaN : un champ jamais écrit se voit. Vérifiez qu’aucun '
        'thread ne dépasse la dernière particule.',
        'out 必须包含每个粒子的每个字段：x、y、z 分别前进 vx·dt、vy·dt、vz·dt，其余五个字段原样复制。'
        'out 传进来时填满了 NaN，漏写的字段会暴露出来；并确保没有线程越过最后一个粒子。',
    ),
    'exercise.02-aos.hint.loads': (
        'One thread per particle reading p[i, f]: 32 lanes 32 bytes apart, a stride of 8 floats, one sector each. '
        'The 32 lanes of a warp must read 32 consecutive words: see p as n × 8 words in a row and give word w to '
        'thread w (particle w // 8, field w % 8), or load the block\'s records into shared memory that way first.',
        'Un thread par particule qui lit p[i, f] : 32 voies espacées de 32 octets, un pas de 8 flottants, un '
        'secteur chacune. Les 32 voies d’un warp doivent lire 32 mots consécutifs : voyez p comme n × 8 mots à la '
        'suite et confiez le mot w au thread w (particule w // 8, champ w % 8), ou chargez ainsi d’abord les '
        'enregistrements du bloc en mémoire partagée.',
        '每个线程处理一个粒子、读取 p[i, f]：32 个 lane 相隔 32 字节，步长为 8 个浮点数，各占一个 sector。'
        '一个 warp 的 32 个 lane 必须读取 32 个连续的字：把 p 看成首尾相接的 n × 8 个字，让线程 w 负责第 w '
        '个字（第 w // 8 个粒子的第 w % 8 个字段），或者先用这种方式把本 block 的记录读进 shared memory。',
    ),
    'exercise.02-aos.hint.stores': (
        'Writes follow the same rule as reads: out[i, f] from one thread per particle is a stride of 8 floats, '
        '32 sectors per request. Let consecutive lanes write consecutive words of out.',
        'Les écritures suivent la même règle que les lectures : out[i, f] écrit par un thread par particule, '
        'c’est un pas de 8 flottants, 32 secteurs par requête. Faites écrire des mots consécutifs de out par des '
        'voies consécutives.',
        '写入与读取遵循同一规则：每个线程写自己粒子的 out[i, f]，就是步长为 8 个浮点数的访问，每次请求 '
        '32 个 sector。让相邻的 lane 写 out 中相邻的字。',
    ),
    'exercise.02-aos.hint.time': (
        'Strided or not, the kernel reads and writes the same DRAM bytes; but each instruction of a stride of 8 '
        'floats asks L1 for 32 sectors instead of 4, served in several wavefronts one after the other, and L1, not '
        'DRAM, sets the pace. Bring the sectors per request down to 4, loads and stores.',
        'Au pas de 8 flottants ou non, le noyau lit et écrit les mêmes octets en DRAM ; mais chaque instruction au '
        'pas de 8 demande à L1 32 secteurs au lieu de 4, servis en plusieurs wavefronts l’un après l’autre, et '
        'c’est L1, non la DRAM, qui impose le rythme. Ramenez les secteurs par requête à 4, en lecture comme en '
        'écriture.',
        '无论步长是否为 8 个浮点数，kernel 在 DRAM 上读写的字节都一样；但步长为 8 的每条指令向 L1 要 32 个 '
        'sector 而不是 4 个，要分几个 wavefront 依次处理，于是决定速度的是 L1 而不是 DRAM。把读和写的每次'
        '请求 sector 数都降到 4。',
    ),
}
