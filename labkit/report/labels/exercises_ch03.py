"""Chapter 3's exercises: titles, hints and their own metrics. (en, fr, zh)"""

WORDS = {
    # ----- their own metrics (labkit/exercises/ch03.py) ------------------------------------------------
    'exercise.metric.bytes_in_flight_per_warp': (
        'bytes a warp loads before it waits (median)',
        'octets qu’un warp charge avant d’attendre (médiane)',
        'warp 在等待之前发出的读取字节数（中位数）',
    ),
    'exercise.metric.wave_efficiency': (
        'wave efficiency, worst of six GPUs',
        'efficacité des vagues, pire des six GPU',
        '波次效率（六种 GPU 中最差的）',
    ),
    # ----- 03-ilp ------------------------------------------------------------------------------------
    'exercise.03-ilp.title': (
        'A copy at the bandwidth with 16 warps per SM',
        'Une copie à pleine bande passante avec 16 warps par SM',
        '每个 SM 只有 16 个 warp，也让拷贝跑满带宽',
    ),
    'exercise.03-ilp.hint.correct': (
        'out must equal x, element for element: each element copied once, none past the end. After the last '
        'whole trip of your loop, copy what is left (less than one trip) one element at a time, or test every index.',
        'out doit être égal à x, élément par élément : chaque élément copié une fois, aucun au-delà de la fin. '
        'Après le dernier tour complet de votre boucle, copiez ce qui reste (moins d’un tour) élément par élément, '
        'ou testez chaque indice.',
        'out 必须与 x 逐元素相等：每个元素恰好拷贝一次，不能越过末尾。循环最后一个完整的轮次之后，'
        '把剩下的（不足一轮的）元素逐个拷贝，或者对每个下标做越界判断。',
    ),
    'exercise.03-ilp.hint.in_flight': (
        'A load followed by the store that uses it leaves one 128-byte warp load in flight: the warp waits a whole '
        'HBM latency for every 128 bytes. Little\'s law, for an H200 copy at 16 warps per SM, asks each warp for the '
        'target\'s bytes: load several elements a grid apart (each load stays coalesced) into registers, then store them.',
        'Une lecture suivie de l’écriture qui l’utilise ne laisse qu’un chargement de 128 octets en vol par warp : '
        'le warp attend toute une latence HBM tous les 128 octets. La loi de Little demande, pour une copie sur H200 '
        'à 16 warps par SM, les octets de la cible à chaque warp : chargez plusieurs éléments à une grille d’écart '
        '(chaque chargement reste coalescé) dans des registres, puis écrivez-les.',
        '读取之后紧跟着使用它的写入，每个 warp 在途的就只有一次 128 字节的读取：每 128 字节，warp 都要等完'
        '整个 HBM 延迟。按 Little 定律，H200 上每个 SM 16 个 warp 的拷贝，要求每个 warp 在途的字节数达到目标值：'
        '先把相隔一个 grid 宽度的多个元素读进寄存器（每次读取仍然是合并访存），再把它们写出去。',
    ),
    'exercise.03-ilp.hint.local': (
        'Your kernel uses local memory: an array the compiler could not keep in registers (a loop over it whose trip '
        'count is not a constant, an index known only at run time), or spills. Unroll with a constant count, so that '
        'every index is known when compiling, and hold no more values than the registers allow.',
        'Votre noyau utilise de la mémoire locale : un tableau que le compilateur n’a pas pu garder en registres '
        '(une boucle dont le nombre de tours n’est pas une constante, un indice connu seulement à l’exécution), ou '
        'des débordements. Déroulez avec un nombre constant, pour que chaque indice soit connu à la compilation, et '
        'ne gardez pas plus de valeurs que les registres n’en contiennent.',
        '你的 kernel 用到了局部内存：编译器没能把某个数组放进寄存器（遍历它的循环次数不是常量，或者下标要到'
        '运行时才知道），或者发生了溢出。用常量次数展开，让每个下标在编译时就已确定，'
        '同时保存的值不要超过寄存器能容纳的数量。',
    ),
    'exercise.03-ilp.hint.time': (
        'Far above our time, the warps still lack bytes in flight. Check that every load of a trip comes before its '
        'first store, then issue more: Little\'s law gives the minimum, and the latency grows as the copy nears '
        'the bandwidth.',
        'Loin au-dessus de notre temps, les warps manquent encore d’octets en vol. Vérifiez que chaque chargement '
        'd’un tour précède sa première écriture, puis émettez-en davantage : la loi de Little donne le minimum, et '
        'la latence augmente à mesure que la copie approche de la bande passante.',
        '远慢于我们的时间，说明 warp 在途的字节仍然不够。先确认每一轮的所有读取都在第一次写入之前，'
        '再多发出一些：Little 定律给出的是下限，拷贝越接近带宽，延迟就越长。',
    ),
    # ----- 03-tail -----------------------------------------------------------------------------------
    'exercise.03-tail.title': (
        'A grid in whole waves, on any GPU', 'Une grille en vagues entières, sur n’importe quel GPU',
        '在任何 GPU 上都以整数个波次组织 grid',
    ),
    'exercise.03-tail.hint.correct': (
        'out must hold every element\'s rounds of xorshift32, whatever the grid. With fewer blocks than the data '
        'would ask for, each thread must go through its elements a whole grid apart (a grid-stride loop) up to the end.',
        'out doit contenir, pour chaque élément, ses tours de xorshift32, quelle que soit la grille. Avec moins de '
        'blocs que les données n’en demanderaient, chaque thread doit parcourir ses éléments à une grille entière '
        'd’écart (boucle grid-stride) jusqu’au bout.',
        '不论 grid 多大，out 都必须是每个元素经过若干轮 xorshift32 的结果。block 比数据所需的少时，'
        '每个线程要以整个 grid 的宽度为步长遍历自己的元素（grid-stride 循环），一直到末尾。',
    ),
    'exercise.03-tail.hint.waves': (
        'On at least one of the six GPUs, your grid leaves block slots idle: a partial last wave, or less than one '
        'wave. A wave is the SMs times the blocks an SM holds, and that depends on the GPU: ask '
        'calculate(KERNEL, architecture(compute_capability)). Launch a whole number of waves (with a grid-stride '
        'loop, one is enough).',
        'Sur au moins un des six GPU, votre grille laisse des places de bloc vides : une dernière vague partielle, '
        'ou moins d’une vague. Une vague, ce sont les SM multipliés par les blocs qu’un SM héberge, et ce nombre '
        'dépend du GPU : demandez-le à calculate(KERNEL, architecture(compute_capability)). Lancez un nombre entier '
        'de vagues (avec une boucle grid-stride, une seule suffit).',
        '在六种 GPU 中至少有一种上，你的 grid 让一些 block 槽位空着：最后一个波次不满，或者连一个波次都不到。'
        '一个波次等于 SM 数乘以一个 SM 能驻留的 block 数，而后者取决于 GPU：用 '
        'calculate(KERNEL, architecture(compute_capability)) 去问。启动整数个波次（有了 grid-stride 循环，一个就够了）。',
    ),
    'exercise.03-tail.hint.time': (
        'Your grid still ends with a partial wave on this GPU: its last blocks run alone, as long as a full wave. '
        'Size it from the GPU\'s SMs and the blocks per SM the calculator gives.',
        'Votre grille se termine encore par une vague partielle sur ce GPU : ses derniers blocs tournent seuls, '
        'aussi longtemps qu’une vague pleine. Calculez-la à partir des SM du GPU et des blocs par SM que donne le '
        'calculateur.',
        '在这块 GPU 上，你的 grid 仍以一个不满的波次结尾：最后那些 block 单独运行，耗时和一个满波次一样长。'
        '根据 GPU 的 SM 数和计算器给出的每 SM block 数来确定 grid 大小。',
    ),
}
