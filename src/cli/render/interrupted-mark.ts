/** How the terminal marks an answer an interrupt cut short (its entries hold what had streamed). */
export const interruptedMark = "(interrupted)";
