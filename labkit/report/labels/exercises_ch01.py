"""Chapter 1's exercises: titles and hints. (en, fr, zh)"""

WORDS = {
    'exercise.01-fuse.title': (
        'Fuse two kernels: bytes down to the floor', 'Fusionner deux noyaux : les octets au plancher',
        '融合两个 kernel：把字节数降到下限',
    ),
    'exercise.01-fuse.hint.correct': (
        'out must hold max(a·x + y, 0) for every element: check the index and the bounds test of each kernel.',
        'out doit contenir max(a·x + y, 0) pour chaque élément : vérifiez l’indice et le test de bornes de chaque noyau.',
        'out 的每个元素都必须等于 max(a·x + y, 0)：检查每个 kernel 的下标和越界判断。',
    ),
    'exercise.01-fuse.hint.bytes': (
        'Count what each kernel reads and writes: tmp is written (4 bytes per element) then read back (4 more). '
        'One kernel that keeps a·x + y in a register moves x, y and out only: 12 bytes.',
        'Comptez ce que chaque noyau lit et écrit : tmp est écrit (4 octets par élément) puis relu (4 de plus). '
        'Un seul noyau qui garde a·x + y dans un registre ne déplace que x, y et out : 12 octets.',
        '数一数每个 kernel 读写了什么：tmp 先被写入（每个元素 4 字节），再被读回（又 4 字节）。'
        '只用一个 kernel、把 a·x + y 留在寄存器里，就只搬运 x、y 和 out：12 字节。',
    ),
    'exercise.01-fuse.hint.time': (
        'A memory-bound kernel takes at least its bytes / the bandwidth: with 20 bytes per element instead of 12, '
        'expect about 20/12 of our time. Reduce the bytes first.',
        'Un noyau limité par la mémoire prend au moins ses octets / la bande passante : avec 20 octets par élément '
        'au lieu de 12, attendez-vous à environ 20/12 de notre temps. Réduisez d’abord les octets.',
        '受内存限制的 kernel 至少需要“字节数 / 带宽”的时间：每个元素 20 字节而不是 12 字节，'
        '时间约为我们的 20/12。先减少字节数。',
    ),
    'exercise.01-reduce.title': (
        'A sum at the speed of its bytes', 'Une somme à la vitesse de ses octets', '以字节速度完成的求和',
    ),
    'exercise.01-reduce.hint.correct': (
        'out[0] must be the exact sum (the inputs are 0 and 1, so any order gives it): set out[0] once per call, '
        'before any thread adds to it, and make sure every element is added exactly once.',
        'out[0] doit être la somme exacte (les entrées valent 0 ou 1 : tout ordre la donne) : fixez out[0] une fois '
        'par appel, avant qu’un thread y ajoute quoi que ce soit, et ajoutez chaque élément exactement une fois.',
        'out[0] 必须是精确的和（输入只有 0 和 1，任何求和顺序都精确）：每次调用先给 out[0] 赋一次初值，'
        '再让线程往里加；并确保每个元素恰好加一次。',
    ),
    'exercise.01-reduce.hint.atomics': (
        'Atomics on one address are served one at a time. Let each thread sum many elements in a register '
        '(a grid-stride loop), combine the block\'s sums in shared memory, and issue one atomic per block.',
        'Les atomiques sur une même adresse sont servies une à une. Que chaque thread somme beaucoup d’éléments '
        'dans un registre (boucle grid-stride), que le bloc combine ses sommes en mémoire partagée, et une seule '
        'atomique par bloc.',
        '对同一地址的原子操作只能逐个执行。让每个线程先在寄存器里累加许多元素（grid-stride 循环），'
        '再在 shared memory 中合并整个 block 的部分和，每个 block 只做一次原子操作。',
    ),
    'exercise.01-reduce.hint.time': (
        'A sum reads 4 bytes per element and does almost nothing else: its floor is n × 4 bytes / the bandwidth. '
        'Far above it, look for what serialises (atomics) or for too few loads in flight (too few threads or blocks).',
        'Une somme lit 4 octets par élément et ne fait presque rien d’autre : son plancher est n × 4 octets / la '
        'bande passante. Loin au-dessus, cherchez ce qui sérialise (les atomiques) ou trop peu de lectures en vol '
        '(trop peu de threads ou de blocs).',
        '求和每个元素读 4 字节，几乎不做别的：下限是 n × 4 字节 / 带宽。'
        '若远高于此，找找是什么在串行化（原子操作），或在途的读取太少（线程或 block 太少）。',
    ),
}
