import { orderBatchingSuite } from '../support/order-batching-suite';

orderBatchingSuite('dynalite');
