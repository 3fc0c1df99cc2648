import type { Board } from '@exb/shared/exam-day.js';
import type { FastifyReply } from 'fastify';
import { boardCsv, boardCsvFileName } from '../../domain/exam-day/board-csv.js';

/** Answers an exam-day board as a CSV download (instructor and administrator routes alike). */
export function sendBoardCsv(reply: FastifyReply, board: Board): FastifyReply {
  return reply
    .code(200)
    .header('content-type', 'text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${boardCsvFileName(board)}"`)
    .send(boardCsv(board));
}
