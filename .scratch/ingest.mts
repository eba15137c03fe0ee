import { measureIngestion, printIngestion } from '../bench/ingestion.ts';
const result = await measureIngestion({ projectRoot: process.cwd(), log: (l) => console.log(l) });
printIngestion(result, (l = '') => console.log(l));
console.log(JSON.stringify(result));
