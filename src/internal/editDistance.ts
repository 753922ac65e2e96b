/**
 * The edit distance between two names (insertions, deletions, substitutions
 * and swaps of neighbouring characters each count one): what `fe_doctor`
 * uses to recognise a mistyped import and code mode to name the tools
 * nearest to an unknown one.
 *
 * @internal
 */

/** The edit distance between `a` and `b`. */
export const editDistance = (a: string, b: string): number => {
  const rows: Array<Array<number>> = []
  for (let i = 0; i <= a.length; i++) {
    rows.push([i])
    for (let j = 1; j <= b.length; j++) rows[i]![j] = i === 0 ? j : 0
  }
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, rows[i - 2]![j - 2]! + 1)
      rows[i]![j] = best
    }
  }
  return rows[a.length]![b.length]!
}
