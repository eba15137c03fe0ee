import { orderWritesSuite } from '../support/order-writes-suite';

orderWritesSuite('dynalite');
