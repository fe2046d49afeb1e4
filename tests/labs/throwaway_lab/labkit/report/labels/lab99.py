"""Lab 99: the throwaway lab. (en, fr, zh)"""

WORDS = {
    'table.lab99.scale': ('One scale, timed', 'Un produit par un scalaire, chronométré', '一次数乘的计时'),
    'column.gbps': ('GB/s', 'Go/s', 'GB/s'),
}
