import { exactlyOnceSuite } from '../support/exactly-once-suite';

// dynalite, as `npm start` and every other integration test use it.
exactlyOnceSuite('dynalite');
